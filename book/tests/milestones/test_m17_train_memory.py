"""S4.4 (Training memory on paper): train_memory.json counts the bytes training keeps per parameter."""

from milestone import artifact, load_json, config, field, integer, number, agrees, param_count, short

SESSION, TITLE = "S4.4", "Training memory on paper"


def test_m17_train_memory():
    where = "train_memory.json"
    data = load_json(artifact(where, SESSION, TITLE))
    cfg = config()
    n = integer(data, "param_count", where)
    agrees(n, param_count(cfg), 0.01, "param_count", where)
    optimizer = field(data, "optimizer", where)
    per = field(data, "bytes_per_param", where)
    if not isinstance(per, dict):
        short(f"{where}: `bytes_per_param` should be an object with weights, grads and optimizer")
    w, g, o = (number(per, k, f"{where} bytes_per_param", positive=True) for k in ("weights", "grads", "optimizer"))
    if str(optimizer).lower() in ("adam", "adamw") and o < 8:
        short(f"{where}: AdamW keeps two moments per parameter, at least 8 bytes in fp32, not {o}")
    total = n * (w + g + o)
    agrees(number(data, "total_bytes", where, positive=True), total, 0.01, "total_bytes", where)
    device = number(data, "device_bytes", where, positive=True)
    if total > device:
        short(f"{where}: training needs {total:,.0f} bytes but the device has {device:,.0f}")
