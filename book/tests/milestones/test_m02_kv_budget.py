"""S1.3 (KV-cache budget): kv_budget.json sizes the cache of your config and shows it fits."""

from milestone import artifact, load_json, config, integer, number, agrees, short

SESSION, TITLE = "S1.3", "KV-cache budget"
BOOK_BUDGET = 8 * 2**20  # kv-cache.md, "A worked budget": 8 MiB for 8 sequences of 512 tokens


def test_m02_kv_budget():
    kv = load_json(artifact("kv_budget.json", SESSION, TITLE))
    cfg = config()
    where = "kv_budget.json"
    n_kv = integer(kv, "n_kv_heads", where)
    if n_kv != cfg["n_kv_heads"]:
        short(f"{where}: n_kv_heads is {n_kv} but config.json says {cfg['n_kv_heads']}; record your choice in both")
    elem = integer(kv, "bytes_per_element", where)
    if elem not in (1, 2, 4):
        short(f"{where}: bytes_per_element should be 1, 2 or 4, found {elem}")
    batch, seq_len = integer(kv, "batch", where), integer(kv, "seq_len", where)
    if batch < 8 or seq_len < 512:
        short(f"{where}: the book's serving target is at least 8 sequences of 512 tokens, found {batch} x {seq_len}")
    if seq_len > cfg["context_length"]:
        short(f"{where}: seq_len {seq_len} is longer than the context length {cfg['context_length']} in config.json")
    budget = integer(kv, "budget_bytes", where)
    if budget > BOOK_BUDGET:
        short(f"{where}: budget_bytes is {budget:,}; the book's budget is at most 8 MiB ({BOOK_BUDGET:,} bytes)")
    layers, heads = cfg["n_layers"], cfg["n_heads"]
    head_dim = cfg["d_model"] // heads
    mha = 2 * layers * heads * head_dim * elem
    per_token = 2 * layers * n_kv * head_dim * elem
    agrees(number(kv, "mha_bytes_per_token", where), mha, 0.01, "mha_bytes_per_token", where)
    agrees(number(kv, "bytes_per_token", where), per_token, 0.01, "bytes_per_token", where)
    cache = per_token * batch * seq_len
    agrees(number(kv, "cache_bytes", where), cache, 0.01, "cache_bytes", where)
    if cache > budget:
        short(f"{where}: the cache needs {cache:,} bytes, over the budget of {budget:,}; fewer KV heads shrink it")
