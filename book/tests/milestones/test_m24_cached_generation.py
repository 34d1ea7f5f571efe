"""S6.2 (Generation with the KV cache): generation.json compares cached and uncached greedy generation."""

from milestone import MYLLM, artifact, load_json, field, integer, short

SESSION, TITLE = "S6.2", "Generation with the KV cache"
MIN_NEW = 16


def ids_list(data, key, where):
    value = field(data, key, where)
    if not isinstance(value, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        short(f"{where}: `{key}` should be a list of token ids")
    return value


def test_m24_cached_generation():
    where = "generation.json"
    data = load_json(artifact(where, SESSION, TITLE))
    vocab = integer(data, "vocab_size", where)
    if (MYLLM / "config.json").exists():
        cfg_v = load_json(MYLLM / "config.json").get("vocab_size")
        if cfg_v != vocab:
            short(f"{where}: vocab_size is {vocab} but config.json says {cfg_v}")
    prompt = ids_list(data, "prompt_ids", where)
    cached, uncached = ids_list(data, "cached_ids", where), ids_list(data, "uncached_ids", where)
    lengths = ids_list(data, "cache_lengths", where)
    if not prompt:
        short(f"{where}: the prompt is empty")
    if len(cached) < MIN_NEW:
        short(f"{where}: {len(cached)} generated ids; generate at least {MIN_NEW}")
    outside = [i for i in prompt + cached + uncached if not 0 <= i < vocab]
    if outside:
        short(f"{where}: ids outside the vocabulary of {vocab}: {outside[:5]}")
    if cached != uncached:
        at = next((i for i, (a, b) in enumerate(zip(cached, uncached)) if a != b), min(len(cached), len(uncached)))
        short(f"{where}: cached and uncached generation disagree from generated token {at}; check positions and masking")
    want = [len(prompt) + i for i in range(len(cached))]
    if lengths != want:
        short(f"{where}: cache_lengths should grow by one per token from the prompt length {len(prompt)}: {want[:4]}...")
