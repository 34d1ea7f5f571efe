"""S5.3 (Beat the baselines): baselines.json compares your model with unigram and bigram models."""

import math

from milestone import artifact, load_json, integer, number, short

SESSION, TITLE = "S5.3", "Beat the baselines"


def test_m21_baselines():
    where = "baselines.json"
    data = load_json(artifact(where, SESSION, TITLE))
    vocab = integer(data, "vocab_size", where)
    unigram = number(data, "unigram_loss", where, positive=True)
    bigram = number(data, "bigram_loss", where, positive=True)
    model = number(data, "model_loss", where, positive=True)
    if unigram > 1.01 * math.log(vocab):
        short(f"{where}: the unigram loss {unigram} is worse than uniform (ln V = {math.log(vocab):.3f}); check the counts")
    if not bigram < unigram:
        short(f"{where}: the bigram loss {bigram} should be below the unigram loss {unigram}")
    if not model < bigram:
        short(f"{where}: the model's loss {model} does not beat the bigram baseline {bigram}")
