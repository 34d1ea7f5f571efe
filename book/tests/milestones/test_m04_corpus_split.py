"""S2.2 (Corpus and a clean split): data/train.txt and data/val.txt, described by data/split.json."""

from milestone import MYLLM, artifact, load_json, integer, number, agrees, short

SESSION, TITLE = "S2.2", "Corpus and a clean split"
MIN_TRAIN_BYTES = 1_000_000  # tokenization.md, "Collecting a corpus"
MIN_LINE = 20


def read_text(rel):
    path = MYLLM / rel
    if not path.exists():
        short(f"checkpoints/myllm/{rel} is missing: session {SESSION} writes it next to data/split.json")
    raw = path.read_bytes()
    try:
        return raw, raw.decode("utf-8")
    except UnicodeDecodeError as err:
        short(f"checkpoints/myllm/{rel} is not UTF-8 ({err}); clean the corpus to UTF-8 first")


def test_m04_corpus_split():
    split = load_json(artifact("data/split.json", SESSION, TITLE))
    where = "data/split.json"
    train_raw, train = read_text("data/train.txt")
    val_raw, val = read_text("data/val.txt")
    train_bytes, val_bytes = len(train_raw), len(val_raw)
    if integer(split, "train_bytes", where) != train_bytes:
        short(f"{where}: train_bytes is {split['train_bytes']:,} but data/train.txt holds {train_bytes:,} bytes")
    if integer(split, "val_bytes", where) != val_bytes:
        short(f"{where}: val_bytes is {split['val_bytes']:,} but data/val.txt holds {val_bytes:,} bytes")
    fraction = val_bytes / (train_bytes + val_bytes)
    agrees(number(split, "val_fraction", where), fraction, 0.01, "val_fraction", where)
    if not 0.02 <= fraction <= 0.20:
        short(f"{where}: validation is {fraction:.1%} of the bytes; keep it between 2% and 20%")
    if train_bytes < MIN_TRAIN_BYTES:
        short(f"data/train.txt holds {train_bytes:,} bytes; the book asks for at least {MIN_TRAIN_BYTES:,}")
    seen = {line.strip() for line in train.splitlines() if len(line.strip()) >= MIN_LINE}
    leaks = [line.strip() for line in val.splitlines() if len(line.strip()) >= MIN_LINE and line.strip() in seen]
    if leaks:
        short(
            f"{len(leaks)} validation lines also appear in data/train.txt, e.g. {leaks[0][:60]!r}; "
            "split by document and drop repeated lines"
        )
