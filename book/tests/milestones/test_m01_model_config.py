"""S1.2 (Model config on paper): config.json holds your model's shape and its parameter count."""

from milestone import artifact, config, field, integer, param_count, agrees, short

SESSION, TITLE = "S1.2", "Model config on paper"


def test_m01_model_config():
    artifact("config.json", SESSION, TITLE)
    cfg = config()
    where = "config.json"
    if not isinstance(field(cfg, "tied_embeddings", where), bool):
        short(f"{where}: `tied_embeddings` should be true or false")
    positional = field(cfg, "positional", where)
    if positional not in ("rope", "learned"):
        short(f"{where}: `positional` should be \"rope\" or \"learned\", found {positional!r}")
    head_dim = cfg["d_model"] // cfg["n_heads"]
    if positional == "rope" and head_dim % 2:
        short(f"{where}: rotary positions rotate pairs, so the head dimension ({head_dim}) must be even")
    actual = param_count(cfg)
    agrees(integer(cfg, "param_count", where), actual, 0.01, "param_count", where)
    if not 1_000_000 <= actual <= 50_000_000:
        short(f"{where}: the model has {actual:,} parameters; the book aims for 1 to 50 million")
