"""S5.2 (Perplexity and bits per byte): eval.json reports the validation loss in three units."""

import math

from milestone import artifact, load_json, integer, number, agrees, short

SESSION, TITLE = "S5.2", "Perplexity and bits per byte"


def test_m20_perplexity():
    where = "eval.json"
    data = load_json(artifact(where, SESSION, TITLE))
    vocab = integer(data, "vocab_size", where)
    loss = number(data, "val_loss", where, positive=True)
    agrees(number(data, "perplexity", where, positive=True), math.exp(loss), 0.01, "perplexity", where)
    bpt = number(data, "bytes_per_token", where, positive=True)
    bpb = loss / math.log(2) / bpt
    agrees(number(data, "bits_per_byte", where, positive=True), bpb, 0.01, "bits_per_byte", where)
    if loss >= math.log(vocab):
        short(f"{where}: val_loss {loss} is no better than guessing uniformly (ln V = {math.log(vocab):.3f})")
