"""S1.4 (Dense vs MoE, decided with numbers): ffn_choice.json compares the two and picks by the book's rule."""

from milestone import artifact, load_json, config, field, integer, number, agrees, param_count, short

SESSION, TITLE = "S1.4", "Dense vs MoE, decided with numbers"
TOKENS_PER_PARAM = 20  # parameters.md, "Compute per token"


def test_m03_dense_vs_moe():
    fc = load_json(artifact("ffn_choice.json", SESSION, TITLE))
    cfg = config()
    where = "ffn_choice.json"
    d, layers = cfg["d_model"], cfg["n_layers"]
    tokens = number(fc, "training_tokens", where, positive=True)
    memory = number(fc, "memory_budget_bytes", where, positive=True)
    dense, moe = field(fc, "dense", where), field(fc, "moe", where)
    if not isinstance(dense, dict) or not isinstance(moe, dict):
        short(f"{where}: `dense` and `moe` should each be a JSON object")

    d_ff = integer(dense, "d_ff", f"{where} dense")
    if d_ff != cfg["d_ff"]:
        short(f"{where}: dense d_ff is {d_ff} but config.json says {cfg['d_ff']}")
    dense_layer = 2 * d * d_ff
    agrees(number(dense, "params_per_layer", f"{where} dense"), dense_layer, 0.01, "dense params_per_layer", where)

    w = f"{where} moe"
    experts, top_k, d_ff_e = integer(moe, "n_experts", w), integer(moe, "top_k", w), integer(moe, "d_ff_expert", w)
    if not 1 <= top_k < experts:
        short(f"{where}: top_k ({top_k}) should be at least 1 and fewer than n_experts ({experts})")
    total = experts * 2 * d * d_ff_e + d * experts
    active = top_k * 2 * d * d_ff_e + d * experts
    agrees(number(moe, "params_per_layer_total", w), total, 0.01, "moe params_per_layer_total", where)
    agrees(number(moe, "params_per_layer_active", w), active, 0.01, "moe params_per_layer_active", where)
    if abs(active - dense_layer) > 0.10 * dense_layer:
        short(
            f"{where}: the options are not compute-matched: one token uses {active:,} MoE parameters per layer "
            f"against {dense_layer:,} dense; make top_k x d_ff_expert close to d_ff"
        )
    n_moe = param_count(cfg) - layers * dense_layer + layers * total
    agrees(number(moe, "model_params_total", w), n_moe, 0.01, "moe model_params_total", where)
    expert_params = layers * 2 * d * d_ff_e
    agrees(number(moe, "expert_params", w), expert_params, 0.01, "moe expert_params", where)
    per_expert = tokens * top_k / experts
    agrees(number(moe, "tokens_per_expert", w), per_expert, 0.01, "moe tokens_per_expert", where)

    choice = field(fc, "choice", where)
    if choice not in ("dense", "moe"):
        short(f"{where}: `choice` should be \"dense\" or \"moe\", found {choice!r}")
    memory_ok = 2 * n_moe <= memory
    data_ok = per_expert >= TOKENS_PER_PARAM * expert_params
    rule = "moe" if memory_ok and data_ok else "dense"
    if choice != rule:
        short(
            f"{where}: choice is {choice!r} but the rule in 'Deciding with numbers' gives {rule!r} for your numbers: "
            f"MoE weights need {2 * n_moe:,} of {memory:,.0f} bytes, and each expert sees {per_expert:,.0f} tokens "
            f"where {TOKENS_PER_PARAM * expert_params:,} are wanted"
        )
