//! The reader's view of a chapter: its rendered HTML cut into sections at headings, which
//! session cards sit at which section, and each card's status as the reader sees it.

use crate::engine::locate::{self, Context, latest_outcome};
use crate::guide::{Guide, ReadItem};
use crate::progress::Status;
use crate::wire::{Outcome, RunSource};

/// A run of a chapter's HTML that starts at a heading (or at the top, before any heading).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The id of the heading the section starts with; `None` for the text before the first one.
    pub id: Option<String>,
    /// The heading element alone (empty for the text before the first heading).
    pub heading: String,
    /// Everything after the heading up to the next heading.
    pub body: String,
}

/// Cuts rendered chapter HTML (from [`crate::render::chapter`]) at every heading. Concatenating
/// each section's `heading` and `body` gives back the HTML exactly.
pub fn sections(html: &str) -> Vec<Section> {
    // pulldown-cmark writes every heading's opening tag at the start of a line, and the renderer
    // escapes raw HTML, so `<hN` at a line start is always a real heading.
    let mut starts: Vec<usize> = Vec::new();
    let bytes = html.as_bytes();
    for (i, _) in html.match_indices("<h") {
        let at_line_start = i == 0 || bytes[i - 1] == b'\n';
        let level = bytes.get(i + 2).copied();
        let after = bytes.get(i + 3).copied();
        if at_line_start && matches!(level, Some(b'1'..=b'6')) && matches!(after, Some(b' ' | b'>')) {
            starts.push(i);
        }
    }
    let mut out = Vec::new();
    if starts.first() != Some(&0) {
        let end = starts.first().copied().unwrap_or(html.len());
        out.push(Section { id: None, heading: String::new(), body: html[..end].to_owned() });
    }
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(html.len());
        let chunk = &html[start..end];
        let level = &chunk[2..3];
        let close = format!("</h{level}>");
        let split = chunk.find(&close).map_or(chunk.len(), |p| p + close.len());
        let open_tag = &chunk[..chunk.find('>').unwrap_or(0)];
        let id = open_tag.split_once("id=\"").and_then(|(_, rest)| rest.split_once('"')).map(|(id, _)| id.to_owned());
        out.push(Section { id, heading: chunk[..split].to_owned(), body: chunk[split..].to_owned() });
    }
    out
}

/// Where a card sits in a chapter: at the heading its first Read link into that chapter names
/// (`None`: the link has no anchor, so the card goes at the top).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub anchor: Option<String>,
    pub card: String,
}

/// The cards whose Read line points into `chapter_path`, each once, in Guide order.
pub fn placements(guide: &Guide, chapter_path: &str) -> Vec<Placement> {
    guide
        .cards
        .iter()
        .filter_map(|card| {
            card.read.iter().find_map(|item| match item {
                ReadItem::Chapter { path, anchor, .. } if path == chapter_path => {
                    Some(Placement { anchor: anchor.clone(), card: card.id.clone() })
                }
                _ => None,
            })
        })
        .collect()
}

/// A card's state as the reader sees it on the card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardStatus {
    NotStarted,
    /// Logged, not done yet (a PARTIAL entry, or a run that did not pass).
    Partial,
    /// Done, and who vouches: the worker ran the Done-when (`Verified`), the log's ✅ or a
    /// read-only session's DONE entry (`SelfReported`), or Phase 0 skipped after its quiz.
    Done(Vouch),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vouch {
    Verified,
    SelfReported,
    Skipped,
}

impl CardStatus {
    /// Short label for badges.
    pub fn label(self) -> &'static str {
        match self {
            CardStatus::NotStarted => "not started",
            CardStatus::Partial => "PARTIAL",
            CardStatus::Done(Vouch::Verified) => "DONE · verified",
            CardStatus::Done(Vouch::SelfReported) => "DONE · self-reported",
            CardStatus::Done(Vouch::Skipped) => "skipped",
        }
    }

    /// The card's button: a session already under way is resumed.
    pub fn start_label(self) -> &'static str {
        if self == CardStatus::Partial { "Resume" } else { "Start" }
    }

    /// A stable class name (`not-started`, `partial`, `done`, `verified`).
    pub fn class(self) -> &'static str {
        match self {
            CardStatus::NotStarted => "not-started",
            CardStatus::Partial => "partial",
            CardStatus::Done(Vouch::Verified) => "verified",
            CardStatus::Done(_) => "done",
        }
    }
}

/// The status of card `id` from the log and the recorded runs (see [`locate::is_done`]).
pub fn card_status(cx: &Context<'_>, id: &str) -> CardStatus {
    if locate::is_done(cx, id) {
        let passed = cx.runs.iter().filter(|r| r.session == id && r.outcome == Outcome::Pass).max_by_key(|r| r.at_unix);
        let vouch = match passed {
            Some(run) if latest_outcome(cx.runs, id) == Some(Outcome::Pass) && run.source == RunSource::Verified => Vouch::Verified,
            Some(_) => Vouch::SelfReported,
            None if locate::phase0_skipped(cx) && cx.guide.card(id).is_some_and(|c| c.phase == 0) => Vouch::Skipped,
            None => Vouch::SelfReported,
        };
        return CardStatus::Done(vouch);
    }
    let logged = cx.log.entries.iter().any(|e| e.session() == id && e.status.as_ref().is_some_and(|s| *s != Status::Skipped));
    let ran = cx.runs.iter().any(|r| r.session == id && r.outcome != Outcome::Skip);
    if logged || ran { CardStatus::Partial } else { CardStatus::NotStarted }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::progress;
    use crate::wire::RunRecord;

    #[test]
    fn sections_cut_at_headings_and_give_back_the_html() {
        let html = crate::render::chapter("kv-cache.md", "Intro text.\n\n## What the cache stores\n\nKeys and values.\n\n```\n<h2>not a heading</h2>\n```\n\n### MQA and GQA\n\nShared heads.\n").html;
        let cut = sections(&html);
        assert_eq!(cut.iter().map(|s| format!("{}{}", s.heading, s.body)).collect::<String>(), html);
        let ids: Vec<_> = cut.iter().map(|s| s.id.clone()).collect();
        expect![[r#"
            [
                None,
                Some(
                    "what-the-cache-stores",
                ),
                Some(
                    "mqa-and-gqa",
                ),
            ]
        "#]]
        .assert_debug_eq(&ids);
        assert!(cut[1].body.contains("not a heading"));
        assert!(sections("").is_empty() || sections("")[0].body.is_empty());
    }

    const GUIDE: &str = "## Phase 0 — Warm up\n\n### S0.1 — Read the map\n\n- **Goal**: a. b.\n- **Needs**: none\n- **Read**: [Intro](intro.md)\n- **Midpoint**: half\n- **Quiz**: map\n\n## Phase 1 — Paper\n\n### S1.3 — KV-cache budget\n\n- **Goal**: a. b.\n- **Needs**: S0.1\n- **Read**: [Why](kv-cache.md#why-decoding-needs-a-cache); [What](kv-cache.md#what-the-cache-stores)\n- **Midpoint**: half\n- **Done-when**: `uv run pytest tests/milestones/test_m02_kv_budget.py`\n\n### S1.4 — Dense vs MoE\n\n- **Goal**: a. b.\n- **Needs**: S1.3\n- **Read**: [Intro](intro.md#top); [MQA](kv-cache.md#mqa-and-gqa)\n- **Midpoint**: half\n- **Done-when**: `uv run pytest tests/milestones/test_m03.py`\n";

    #[test]
    fn each_card_sits_at_its_first_link_into_the_chapter() {
        let (guide, _) = crate::guide::parse("src/session-guide.md", GUIDE);
        let show = |path: &str| placements(&guide, path).iter().map(|p| format!("{}@{}", p.card, p.anchor.as_deref().unwrap_or("top"))).collect::<Vec<_>>().join(" ");
        assert_eq!(show("kv-cache.md"), "S1.3@why-decoding-needs-a-cache S1.4@mqa-and-gqa");
        assert_eq!(show("intro.md"), "S0.1@top S1.4@top");
        assert_eq!(show("missing.md"), "");
    }

    #[test]
    fn status_from_log_and_runs() {
        let (guide, _) = crate::guide::parse("src/session-guide.md", GUIDE);
        let log_text = "### 2026-07-20 — S0.1 (Read the map) — DONE\n- **Done-when**: quiz 8/10\n\n### 2026-07-21 — S1.3 (KV-cache budget) — PARTIAL\n- **Done-when**: test_m02_kv_budget.py ❌\n";
        let (log, _) = progress::parse(log_text);
        let mut runs = locate::self_reported_runs(&log);
        let cx = Context { guide: &guide, log: &log, runs: &runs, phase0_skipped: false };
        let all = |cx: &Context<'_>| guide.cards.iter().map(|c| format!("{}: {}", c.id, card_status(cx, &c.id).label())).collect::<Vec<_>>();
        assert_eq!(all(&cx), ["S0.1: DONE · self-reported", "S1.3: PARTIAL", "S1.4: not started"]);
        runs.push(RunRecord { session: "S1.3".into(), outcome: Outcome::Pass, source: RunSource::Verified, at_unix: 2_000_000_000 });
        let cx = Context { guide: &guide, log: &log, runs: &runs, phase0_skipped: false };
        assert_eq!(card_status(&cx, "S1.3"), CardStatus::Done(Vouch::Verified));
        let (empty, _) = progress::parse("");
        let cx = Context { guide: &guide, log: &empty, runs: &[], phase0_skipped: true };
        assert_eq!(card_status(&cx, "S0.1"), CardStatus::Done(Vouch::Skipped));
        assert_eq!(card_status(&cx, "S1.3"), CardStatus::NotStarted);
    }
}
