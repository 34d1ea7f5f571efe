"""S3.5 (One transformer block): block.json counts a block's parameters and checks the residual path."""

from milestone import artifact, load_json, config, field, number, agrees, short

SESSION, TITLE = "S3.5", "One transformer block"


def test_m12_block():
    where = "block.json"
    data = load_json(artifact(where, SESSION, TITLE))
    cfg = config()
    layout = field(data, "layout", where)
    if layout != "pre-norm":
        short(f"{where}: layout is {layout!r}; the book's block normalises before each branch (\"pre-norm\")")
    d, kv, d_ff = cfg["d_model"], cfg["n_kv_heads"], cfg["d_ff"]
    hd = d // cfg["n_heads"]
    params = field(data, "params", where)
    if not isinstance(params, dict):
        short(f"{where}: `params` should be an object with attention, feed_forward, norms and total")
    want = {
        "attention": 2 * d * d + 2 * d * kv * hd,
        "feed_forward": 2 * d * d_ff,
        "norms": 2 * d,
    }
    want["total"] = sum(want.values())
    for name, count in want.items():
        agrees(number(params, name, f"{where} params"), count, 0.005, f"params.{name}", where)
    diff = number(data, "zero_init_max_abs_diff", where)
    if not 0 <= diff <= 1e-5:
        short(
            f"{where}: with its output projections zeroed the block changes its input by {diff}; "
            "it should return it unchanged, so check the residual additions"
        )
