"""S4.3 (Batch size in tokens): batch.json plans tokens per step and the length of the run."""

from milestone import artifact, load_json, config, integer, param_count, short

SESSION, TITLE = "S4.3", "Batch size in tokens"
MIN_TOKENS_PER_STEP = 16_384  # training.md, "Batch size in tokens"
TOKENS_PER_PARAM = 20


def test_m16_batch_tokens():
    where = "batch.json"
    data = load_json(artifact(where, SESSION, TITLE))
    cfg = config()
    micro, accum, seq = (integer(data, k, where) for k in ("micro_batch", "grad_accum", "seq_len"))
    per_step, steps, total = (integer(data, k, where) for k in ("tokens_per_step", "max_steps", "total_tokens"))
    if seq > cfg["context_length"]:
        short(f"{where}: seq_len {seq} is longer than the context length {cfg['context_length']}")
    if per_step != micro * accum * seq:
        short(f"{where}: tokens_per_step is {per_step:,} but {micro} x {accum} x {seq} = {micro * accum * seq:,}")
    if total != per_step * steps:
        short(f"{where}: total_tokens is {total:,} but {per_step:,} x {steps:,} steps = {per_step * steps:,}")
    if per_step < MIN_TOKENS_PER_STEP:
        short(f"{where}: a step sees {per_step:,} tokens; aim for at least {MIN_TOKENS_PER_STEP:,} (raise grad_accum)")
    n = param_count(cfg)
    if total < TOKENS_PER_PARAM * n:
        short(
            f"{where}: the run sees {total:,} tokens but {n:,} parameters want at least "
            f"{TOKENS_PER_PARAM} each ({TOKENS_PER_PARAM * n:,}); add steps"
        )
