//! Server-sent events (the worker's run stream), read as the bytes arrive.
//!
//! The app reads the stream through `fetch()` (an `EventSource` cannot send the token header),
//! so it gets the body in chunks cut anywhere: inside a line, between `\r` and `\n`, inside a
//! UTF-8 character. [`Parser::push`] takes each chunk and returns the events it completed, read
//! as the HTML standard's event-stream format says: lines end in CRLF, LF or CR; a blank line
//! ends an event; `:` starts a comment (the worker's keep-alives); a field is `name: value`
//! with one optional space after the colon, or a bare `name` with an empty value; `data` lines
//! join with `\n`; an event with no `data` line is not dispatched; `event` names it, else it is
//! `message`; `id`, `retry` and unknown fields are ignored.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The `event` field, or `message` when the event had none.
    pub name: String,
    /// The `data` lines, joined with `\n`.
    pub data: String,
}

/// Reads an event stream chunk by chunk; keeps what an incomplete line or event has so far.
#[derive(Debug, Clone, Default)]
pub struct Parser {
    /// Bytes of the line not ended yet.
    line: Vec<u8>,
    /// The last chunk ended in `\r`: a `\n` starting the next one belongs to that line end.
    after_cr: bool,
    /// The stream's first line is still to come (a byte-order mark there is dropped).
    started: bool,
    name: Option<String>,
    data: Option<String>,
}

impl Parser {
    /// Feeds the next chunk of the stream; returns the events it completed, in order.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<Event> {
        let mut events = Vec::new();
        for &byte in chunk {
            if std::mem::take(&mut self.after_cr) && byte == b'\n' {
                continue;
            }
            match byte {
                b'\r' | b'\n' => {
                    self.after_cr = byte == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(event) = self.line_ended(&line) {
                        events.push(event);
                    }
                }
                _ => self.line.push(byte),
            }
        }
        events
    }

    fn line_ended(&mut self, bytes: &[u8]) -> Option<Event> {
        // Line ends never fall inside a UTF-8 character, so a whole line decodes on its own.
        let text = String::from_utf8_lossy(bytes);
        let mut line: &str = &text;
        if !std::mem::replace(&mut self.started, true) {
            line = line.strip_prefix('\u{feff}').unwrap_or(line);
        }
        if line.is_empty() {
            let name = self.name.take();
            let data = self.data.take()?;
            return Some(Event { name: name.unwrap_or_else(|| "message".to_owned()), data });
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => self.name = Some(value.to_owned()),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: &str, data: &str) -> Event {
        Event { name: name.to_owned(), data: data.to_owned() }
    }

    fn all(chunks: &[&[u8]]) -> Vec<Event> {
        let mut parser = Parser::default();
        chunks.iter().flat_map(|c| parser.push(c)).collect()
    }

    /// The same stream fed whole, byte by byte, and cut at every position gives the same events.
    fn every_split(stream: &[u8]) -> Vec<Event> {
        let whole = all(&[stream]);
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(all(&bytes), whole, "byte by byte");
        for cut in 0..=stream.len() {
            let (a, b) = stream.split_at(cut);
            assert_eq!(all(&[a, b]), whole, "cut at {cut}");
        }
        whole
    }

    #[test]
    fn the_worker_stream_output_then_done() {
        let stream = b"event: output\ndata: {\"text\":\"collecting ...\\n\"}\n\n:\n\nevent: done\ndata: {\"outcome\":\"pass\"}\n\n";
        assert_eq!(
            every_split(stream),
            vec![event("output", r#"{"text":"collecting ...\n"}"#), event("done", r#"{"outcome":"pass"}"#)]
        );
    }

    #[test]
    fn chunks_cut_inside_a_line_wait_for_its_end() {
        let mut parser = Parser::default();
        assert_eq!(parser.push(b"event: do"), vec![]);
        assert_eq!(parser.push(b"ne\ndata: 4"), vec![]);
        assert_eq!(parser.push(b"2\n"), vec![]);
        assert_eq!(parser.push(b"\n"), vec![event("done", "42")]);
        assert_eq!(parser.push(b""), vec![]);
    }

    #[test]
    fn crlf_and_lone_cr_end_lines_even_split_between_cr_and_lf() {
        let crlf = every_split(b"event: output\r\ndata: a\r\n\r\nevent: done\r\ndata: b\r\n\r\n");
        assert_eq!(crlf, vec![event("output", "a"), event("done", "b")]);
        assert_eq!(every_split(b"event: output\rdata: a\r\rdata: b\r\r"), vec![event("output", "a"), event("message", "b")]);
        // `\r` then `\n` in the next chunk is one line end, not a blank line.
        let mut parser = Parser::default();
        assert_eq!(parser.push(b"data: a\r"), vec![]);
        assert_eq!(parser.push(b"\ndata: b\r"), vec![]);
        assert_eq!(parser.push(b"\n\r\n"), vec![event("message", "a\nb")]);
    }

    #[test]
    fn data_lines_join_with_newlines() {
        assert_eq!(every_split(b"data: first\ndata:second\ndata\ndata:  two spaces\n\n"), vec![event("message", "first\nsecond\n\n two spaces")]);
        // A data line with an empty value still makes an event.
        assert_eq!(every_split(b"data:\n\n"), vec![event("message", "")]);
    }

    #[test]
    fn comments_and_other_fields_are_ignored() {
        let stream = b": keep-alive\n\n:\nid: 7\nretry: 1000\nevent: output\n: a comment inside an event\nweird: field\ndata: x\n\n";
        assert_eq!(every_split(stream), vec![event("output", "x")]);
    }

    #[test]
    fn an_event_without_data_is_not_dispatched_and_names_do_not_leak() {
        assert_eq!(every_split(b"event: output\n\ndata: plain\n\n"), vec![event("message", "plain")]);
    }

    #[test]
    fn an_unfinished_event_is_not_dispatched() {
        assert_eq!(every_split(b"event: done\ndata: {}\n"), vec![]);
    }

    #[test]
    fn utf8_split_across_chunks_and_a_leading_bom() {
        let stream = "\u{feff}event: output\ndata: déjà vu — ✅\n\n".as_bytes();
        assert_eq!(every_split(stream), vec![event("output", "déjà vu — ✅")]);
        // Only the stream's first line may carry the mark.
        assert_eq!(every_split("data: a\n\n\u{feff}data: b\n\n".as_bytes()), vec![event("message", "a")]);
    }
}
