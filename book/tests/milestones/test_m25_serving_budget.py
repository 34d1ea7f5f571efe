"""S6.3 (A serving budget): serving.json plans serving memory and records one timing."""

from milestone import MYLLM, artifact, load_json, config, integer, number, agrees, param_count, short

SESSION, TITLE = "S6.3", "A serving budget"


def test_m25_serving_budget():
    where = "serving.json"
    data = load_json(artifact(where, SESSION, TITLE))
    n = integer(data, "param_count", where)
    if (MYLLM / "config.json").exists():
        agrees(n, param_count(config()), 0.01, "param_count", where)
    per_param = number(data, "bytes_per_param", where, positive=True)
    kv_per_token = number(data, "kv_bytes_per_token", where, positive=True)
    batch, seq = integer(data, "max_batch", where), integer(data, "max_seq_len", where)
    weights = n * per_param
    kv = kv_per_token * batch * seq
    agrees(number(data, "weight_bytes", where, positive=True), weights, 0.01, "weight_bytes", where)
    agrees(number(data, "kv_bytes", where, positive=True), kv, 0.01, "kv_bytes (for every sequence in flight)", where)
    total = weights + kv
    agrees(number(data, "total_bytes", where, positive=True), total, 0.01, "total_bytes", where)
    device = number(data, "device_bytes", where, positive=True)
    if total > device:
        short(f"{where}: serving needs {total:,.0f} bytes but the device has {device:,.0f}")
    integer(data, "prefill_tokens", where)
    prefill = number(data, "prefill_seconds", where, positive=True)
    decode_tokens = integer(data, "decode_tokens", where)
    decode = number(data, "decode_seconds", where, positive=True)
    agrees(number(data, "decode_tokens_per_second", where, positive=True), decode_tokens / decode, 0.01, "decode_tokens_per_second", where)
    ttft = number(data, "ttft_ms", where, positive=True)
    if ttft < 0.99 * prefill * 1000:
        short(f"{where}: ttft_ms {ttft} is shorter than the prefill ({prefill * 1000:.1f} ms); the first token comes after it")
