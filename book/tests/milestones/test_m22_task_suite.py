"""S5.4 (A small task suite): eval_suite.json holds prompts, expected answers and your model's answers."""

from milestone import artifact, load_json, field, number, short

SESSION, TITLE = "S5.4", "A small task suite"
MIN_ITEMS = 20


def normal(text: str) -> str:
    return text.strip().lower()


def test_m22_task_suite():
    where = "eval_suite.json"
    data = load_json(artifact(where, SESSION, TITLE))
    items = field(data, "items", where)
    if not isinstance(items, list):
        short(f"{where}: `items` should be a list of prompt/expected/got objects")
    for n, item in enumerate(items):
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("prompt", "expected", "got")):
            short(f"{where}: item {n} should have string fields prompt, expected and got")
        if not item["prompt"].strip() or not item["expected"].strip():
            short(f"{where}: item {n} has an empty prompt or expected answer")
    prompts = {normal(item["prompt"]) for item in items}
    if len(prompts) < MIN_ITEMS:
        short(f"{where}: {len(prompts)} distinct prompts; write at least {MIN_ITEMS}")
    correct = sum(normal(item["got"]).startswith(normal(item["expected"])) for item in items)
    accuracy = correct / len(items)
    stated = number(data, "accuracy", where)
    if abs(stated - accuracy) > 1e-6:
        short(f"{where}: accuracy is {stated} but {correct} of {len(items)} answers are correct ({accuracy:.4f})")
