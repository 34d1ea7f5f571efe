"""S3.4 (Multi-head and grouped attention shapes): shapes.json traces one attention pass of your config."""

from milestone import artifact, load_json, config, field, integer, short

SESSION, TITLE = "S3.4", "Multi-head and grouped attention shapes"


def test_m11_attention_shapes():
    where = "shapes.json"
    data = load_json(artifact(where, SESSION, TITLE))
    cfg = config()
    b, t = integer(data, "batch", where), integer(data, "seq_len", where)
    if t > cfg["context_length"]:
        short(f"{where}: seq_len {t} is longer than the context length {cfg['context_length']}")
    d, h, kv = cfg["d_model"], cfg["n_heads"], cfg["n_kv_heads"]
    hd = d // h
    want = {
        "x": [b, t, d],
        "q": [b, h, t, hd],
        "k": [b, kv, t, hd],
        "v": [b, kv, t, hd],
        "k_repeated": [b, h, t, hd],
        "scores": [b, h, t, t],
        "context": [b, t, d],
        "out": [b, t, d],
    }
    shapes = field(data, "shapes", where)
    if not isinstance(shapes, dict):
        short(f"{where}: `shapes` should map tensor names to shapes")
    for name, shape in want.items():
        if name not in shapes:
            short(f"{where}: no shape recorded for `{name}`")
        if shapes[name] != shape:
            short(
                f"{where}: `{name}` has shape {shapes[name]}, but batch {b}, seq_len {t} and your config "
                f"(d_model {d}, n_heads {h}, n_kv_heads {kv}) give {shape}"
            )
