"""S4.1 (Overfit one batch): overfit.json holds the losses of training on a single batch."""

import math

from milestone import artifact, load_json, integer, numbers, short

SESSION, TITLE = "S4.1", "Overfit one batch"


def test_m14_overfit_batch():
    where = "overfit.json"
    data = load_json(artifact(where, SESSION, TITLE))
    vocab = integer(data, "vocab_size", where)
    integer(data, "batch", where)
    integer(data, "seq_len", where)
    losses = numbers(data, "losses", where, min_len=20)
    uniform = math.log(vocab)
    if abs(losses[0] - uniform) > 0.15 * uniform:
        short(f"{where}: the first loss is {losses[0]} but an untrained model starts near ln V = {uniform:.3f}")
    if losses[-1] > 0.5:
        short(
            f"{where}: the last loss is {losses[-1]}; memorising one batch should get below 0.5 nats, "
            "so train longer or check the loop"
        )
