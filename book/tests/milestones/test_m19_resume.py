"""S4.6 (Checkpoint and resume): resume.json shows a run picking up where its checkpoint left it."""

from milestone import artifact, load_json, field, integer, number, short

SESSION, TITLE = "S4.6", "Checkpoint and resume"


def test_m19_resume():
    where = "resume.json"
    data = load_json(artifact(where, SESSION, TITLE))
    integer(data, "step", where)
    saved = field(data, "saved", where)
    if not isinstance(saved, list):
        short(f"{where}: `saved` should list what the checkpoint holds")
    missing = [x for x in ("model", "optimizer", "step") if x not in saved]
    if missing:
        short(f"{where}: the checkpoint does not save {', '.join(missing)}; a resumed run needs them")
    before = number(data, "loss_before", where, positive=True)
    after = number(data, "loss_after", where, positive=True)
    if abs(after - before) > 0.05 * before:
        short(f"{where}: the loss moved from {before} to {after} across the resume; more than 5% means state was lost")
    lr_before = number(data, "lr_before", where, positive=True)
    lr_after = number(data, "lr_after", where, positive=True)
    if abs(lr_after - lr_before) > 0.001 * lr_before:
        short(f"{where}: the learning rate was {lr_before} before saving and {lr_after} after; resume the schedule's step")
