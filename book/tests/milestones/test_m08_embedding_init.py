"""S3.1 (Embedding table and positions): weights/embedding.json measures the table's initialisation."""

from milestone import artifact, load_json, config, field, number, short

SESSION, TITLE = "S3.1", "Embedding table and positions"


def test_m08_embedding_init():
    where = "weights/embedding.json"
    emb = load_json(artifact(where, SESSION, TITLE))
    cfg = config()
    shape = field(emb, "shape", where)
    want = [cfg["vocab_size"], cfg["d_model"]]
    if shape != want:
        short(f"{where}: shape is {shape} but config.json gives [vocab_size, d_model] = {want}")
    init_std = number(emb, "init_std", where, positive=True)
    if not 0.005 <= init_std <= 0.1:
        short(f"{where}: init_std {init_std} is outside the sensible range 0.005 to 0.1")
    std = number(emb, "std", where, positive=True)
    if abs(std - init_std) > 0.10 * init_std:
        short(f"{where}: the measured std {std} is more than 10% away from init_std {init_std}; std or variance?")
    mean = number(emb, "mean", where)
    if abs(mean) > 0.1 * std:
        short(f"{where}: the measured mean {mean} is not small next to the std {std}; initialise around zero")
    positional = field(emb, "positional", where)
    if positional != cfg.get("positional", "rope"):
        short(f"{where}: positional is {positional!r} but config.json says {cfg.get('positional', 'rope')!r}")
