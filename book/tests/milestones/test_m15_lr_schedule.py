"""S4.2 (Warmup and cosine decay): lr_schedule.json samples your scheduler at chosen steps."""

import math

from milestone import artifact, load_json, field, integer, number, agrees, short

SESSION, TITLE = "S4.2", "Warmup and cosine decay"


def book_lr(step, max_lr, min_lr, warmup, max_steps):
    """training.md, 'The learning rate schedule'."""
    if step < warmup:
        return max_lr * (step + 1) / warmup
    p = (step - warmup) / (max_steps - warmup)
    return min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * p))


def test_m15_lr_schedule():
    where = "lr_schedule.json"
    data = load_json(artifact(where, SESSION, TITLE))
    max_lr = number(data, "max_lr", where, positive=True)
    min_lr = number(data, "min_lr", where, positive=True)
    warmup, max_steps = integer(data, "warmup_steps", where), integer(data, "max_steps", where)
    if min_lr >= max_lr:
        short(f"{where}: min_lr ({min_lr}) should be below max_lr ({max_lr})")
    if warmup >= max_steps:
        short(f"{where}: warmup_steps ({warmup}) should be fewer than max_steps ({max_steps})")
    samples = field(data, "samples", where)
    if not isinstance(samples, list) or not all(
        isinstance(s, list) and len(s) == 2 and isinstance(s[0], int) and isinstance(s[1], (int, float)) for s in samples
    ):
        short(f"{where}: `samples` should be a list of [step, lr] pairs")
    if len(samples) < 10:
        short(f"{where}: {len(samples)} samples; print at least 10 from your scheduler")
    steps = [s for s, _ in samples]
    if any(not 0 <= s <= max_steps for s in steps):
        short(f"{where}: every sampled step should lie between 0 and max_steps ({max_steps})")
    if sum(s < warmup for s in steps) < 2 or sum(s >= warmup for s in steps) < 2:
        short(f"{where}: sample at least two steps in warmup (below {warmup}) and two in the decay")
    for step, lr in samples:
        agrees(lr, book_lr(step, max_lr, min_lr, warmup, max_steps), 0.01, f"the learning rate at step {step}", where)
