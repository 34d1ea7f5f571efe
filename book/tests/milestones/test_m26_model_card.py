"""S6.4 (Model card and release): model_card.json describes the model with numbers from your own files."""

from milestone import artifact, needs, load_json, config, field, integer, number, agrees, param_count, short

SESSION, TITLE = "S6.4", "Model card and release"


def text(data, key, where):
    value = field(data, key, where)
    if not isinstance(value, str) or not value.strip():
        short(f"{where}: `{key}` should be a non-empty text")
    return value


def test_m26_model_card():
    where = "model_card.json"
    card = load_json(artifact(where, SESSION, TITLE))
    cfg = config()
    ev = load_json(needs("eval.json", "S5.2", "Perplexity and bits per byte"))
    text(card, "name", where)
    agrees(integer(card, "param_count", where), param_count(cfg), 0.01, "param_count", where)
    integer(card, "training_tokens", where)
    agrees(number(card, "val_loss", where, positive=True), number(ev, "val_loss", "eval.json"), 0.001, "val_loss (from eval.json)", where)
    agrees(number(card, "perplexity", where, positive=True), number(ev, "perplexity", "eval.json"), 0.01, "perplexity (from eval.json)", where)
    text(card, "intended_use", where)
    text(card, "license", where)
    limits = field(card, "limitations", where)
    if not isinstance(limits, list) or len({x.strip() for x in limits if isinstance(x, str) and x.strip()}) < 2:
        short(f"{where}: state at least two distinct limitations; what does your model get wrong?")
