"""S6.1 (Temperature, top-k and top-p): sampling_check.json holds one distribution your sampler produced."""

from milestone import artifact, load_json, integer, number, numbers, softmax, short

SESSION, TITLE = "S6.1", "Temperature, top-k and top-p"
TOLERANCE = 1e-3


def book_sampling(logits, temperature, top_k, top_p):
    """sampling.md, 'Cutting the tail': temperature, then top-k, then top-p, renormalising each time."""
    probs = softmax([z / temperature for z in logits])
    order = sorted(range(len(probs)), key=lambda i: (-probs[i], i))
    kept = order[:top_k]
    total = sum(probs[i] for i in kept)
    probs = [p / total if i in kept else 0.0 for i, p in enumerate(probs)]
    nucleus, running = [], 0.0
    for i in kept:
        nucleus.append(i)
        running += probs[i]
        if running >= top_p:
            break
    total = sum(probs[i] for i in nucleus)
    return [p / total if i in nucleus else 0.0 for i, p in enumerate(probs)]


def test_m23_sampling():
    where = "sampling_check.json"
    data = load_json(artifact(where, SESSION, TITLE))
    logits = numbers(data, "logits", where, min_len=8)
    temperature = number(data, "temperature", where, positive=True)
    if temperature == 1:
        short(f"{where}: use a temperature other than 1 so the check exercises it")
    top_k = integer(data, "top_k", where)
    if top_k >= len(logits):
        short(f"{where}: top_k ({top_k}) should be fewer than the {len(logits)} logits so it cuts something")
    top_p = number(data, "top_p", where, positive=True)
    if top_p >= 1:
        short(f"{where}: top_p ({top_p}) should be below 1 so it cuts something")
    probs = numbers(data, "probs", where, min_len=len(logits))
    if len(probs) != len(logits):
        short(f"{where}: probs should have one entry per logit ({len(logits)}), found {len(probs)}")
    want = book_sampling(logits, temperature, top_k, top_p)
    worst = max(range(len(want)), key=lambda i: abs(probs[i] - want[i]))
    if abs(probs[worst] - want[worst]) > TOLERANCE:
        short(
            f"{where}: probs[{worst}] is {probs[worst]} but temperature, top-k, then top-p give "
            f"{want[worst]:.4f}; check the order of the cuts and the renormalising"
        )
