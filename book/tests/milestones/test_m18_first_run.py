"""S4.5 (The first real run): metrics.json holds the loss history of a full training run."""

import math

from milestone import artifact, load_json, integer, numbers, short

SESSION, TITLE = "S4.5", "The first real run"


def test_m18_first_run():
    where = "metrics.json"
    data = load_json(artifact(where, SESSION, TITLE))
    vocab = integer(data, "vocab_size", where)
    steps = numbers(data, "steps", where, min_len=5)
    train = numbers(data, "train_loss", where, min_len=5)
    val = numbers(data, "val_loss", where, min_len=5)
    if not len(steps) == len(train) == len(val):
        short(f"{where}: steps, train_loss and val_loss should have one entry per evaluation")
    if any(b <= a for a, b in zip(steps, steps[1:])):
        short(f"{where}: steps should increase from one evaluation to the next")
    target = math.log(vocab) - 1
    if val[-1] > target:
        short(f"{where}: the final validation loss {val[-1]} should be at least 1 nat below ln V, i.e. under {target:.3f}")
    if val[-1] > 1.1 * min(val):
        short(f"{where}: the final validation loss {val[-1]} is more than 10% above the best {min(val)}; the run diverged")
