//! Splits a Done-when command into argv without a shell, refusing anything a shell would interpret.
//!
//! The worker runs the card's command exactly as printed, but never through `sh -c`: a card is
//! text from a book, and the run is started at a web page's request. So the command is split the
//! way a POSIX shell splits simple words, and everything that would make a shell do more than
//! split (pipes, redirections, `;`, globs, variables, command substitution, `~`, comments,
//! leading `NAME=value` assignments) is an error, not a feature. No crate does "split, and reject
//! what is not plain words" (shell-words splits and expands nothing, but cannot say which
//! characters were quoted), hence this small hand-written tokenizer.
//!
//! # Grammar
//!
//! ```text
//! command := WS* word (WS+ word)* WS*           ; WS is space or tab
//! word    := (plain | '\' CHAR | single | double)+
//! single  := "'" (any char but "'")* "'"         ; taken literally
//! double  := '"' (CHAR but '"' '\' '$' '`' '!' | '\"' | '\\' | '\' CHAR)* '"'
//! plain   := any char but WS, quotes, '\' and the metacharacters  ; & | < > ( ) $ ` * ? [ ] { } ~ # !
//! ```
//!
//! Control characters (newlines included) are rejected everywhere, quoted or not, and the first
//! word may not contain `=` (a shell would read it as an environment assignment).

/// Characters a shell gives meaning to when they appear unquoted.
const METACHARACTERS: &[char] = &[';', '&', '|', '<', '>', '(', ')', '$', '`', '*', '?', '[', ']', '{', '}', '~', '#', '!'];

/// Splits `command` into argv, or says which part a shell would interpret.
pub fn split(command: &str) -> Result<Vec<String>, String> {
    if let Some(c) = command.chars().find(|c| c.is_control() && *c != '\t') {
        return Err(format!("the command holds the control character {c:?}; print it on one line without control characters"));
    }
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a single quote is never closed; close it or remove it".to_owned()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            // POSIX keeps a backslash before any other character inside quotes.
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("a double quote is never closed; close it or remove it".to_owned()),
                        },
                        Some(c @ ('$' | '`' | '!')) => {
                            return Err(format!("{c:?} inside double quotes would be expanded by a shell; use single quotes"));
                        }
                        Some(c) => word.push(c),
                        None => return Err("a double quote is never closed; close it or remove it".to_owned()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("the command ends in a lone backslash; remove it".to_owned()),
                }
            }
            c if METACHARACTERS.contains(&c) => {
                return Err(format!(
                    "{c:?} means something to a shell, and Done-when commands run without one; quote it or split the command into plain words"
                ));
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    match words.first() {
        None => Err("the command is empty; write the test command between the backticks".to_owned()),
        Some(first) if first.contains('=') => {
            Err(format!("`{first}` would be an environment assignment in a shell; put settings in the project's config instead"))
        }
        Some(_) => Ok(words),
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use proptest::prelude::*;

    use super::split;

    fn check(command: &str, expect: Expect) {
        let shown = match split(command) {
            Ok(words) => format!("{words:?}"),
            Err(message) => format!("error: {message}"),
        };
        expect.assert_eq(&shown);
    }

    #[test]
    fn the_books_commands_are_plain_words() {
        check("uv run pytest tests/milestones/test_m02_kv_budget.py", expect![[r#"["uv", "run", "pytest", "tests/milestones/test_m02_kv_budget.py"]"#]]);
        check("  uv\trun   pytest tests/milestones/  ", expect![[r#"["uv", "run", "pytest", "tests/milestones/"]"#]]);
        check("pytest tests/x.py::test_one --junit-prefix=a", expect![[r#"["pytest", "tests/x.py::test_one", "--junit-prefix=a"]"#]]);
    }

    #[test]
    fn quotes_group_words_and_keep_metacharacters_literal() {
        check(r#"python3 -c 'print("hi"); import sys'"#, expect![[r#"["python3", "-c", "print(\"hi\"); import sys"]"#]]);
        check(r#"pytest -k "not slow and (a or b)""#, expect![[r#"["pytest", "-k", "not slow and (a or b)"]"#]]);
        check(r#"echo "a\"b" a\ b "c\d" ''"#, expect![[r#"["echo", "a\"b", "a b", "c\\d", ""]"#]]);
    }

    #[test]
    fn what_a_shell_would_interpret_is_refused() {
        check("uv run pytest; rm -rf ~", expect!["error: ';' means something to a shell, and Done-when commands run without one; quote it or split the command into plain words"]);
        check("pytest | tee log", expect!["error: '|' means something to a shell, and Done-when commands run without one; quote it or split the command into plain words"]);
        check("pytest > out", expect!["error: '>' means something to a shell, and Done-when commands run without one; quote it or split the command into plain words"]);
        check("pytest tests/*.py", expect!["error: '*' means something to a shell, and Done-when commands run without one; quote it or split the command into plain words"]);
        check("echo $HOME", expect!["error: '$' means something to a shell, and Done-when commands run without one; quote it or split the command into plain words"]);
        check(r#"echo "$(id)""#, expect!["error: '$' inside double quotes would be expanded by a shell; use single quotes"]);
        check("echo `id`", expect!["error: '`' means something to a shell, and Done-when commands run without one; quote it or split the command into plain words"]);
        check("cat ~/.ssh/id_rsa", expect!["error: '~' means something to a shell, and Done-when commands run without one; quote it or split the command into plain words"]);
        check("PYTHONPATH=. pytest", expect!["error: `PYTHONPATH=.` would be an environment assignment in a shell; put settings in the project's config instead"]);
        check("pytest\nrm -rf /", expect![[r#"error: the command holds the control character '\n'; print it on one line without control characters"#]]);
        check("echo 'open", expect!["error: a single quote is never closed; close it or remove it"]);
        check("echo \"open", expect!["error: a double quote is never closed; close it or remove it"]);
        check("echo a\\", expect!["error: the command ends in a lone backslash; remove it"]);
        check("   ", expect!["error: the command is empty; write the test command between the backticks"]);
    }

    proptest! {
        /// Plain words joined by spaces split back into the same words.
        #[test]
        fn plain_words_round_trip(words in prop::collection::vec("[A-Za-z0-9_./:=,+@%-]{1,12}", 1..8)) {
            prop_assume!(!words[0].contains('='));
            prop_assert_eq!(split(&words.join(" ")), Ok(words));
        }

        /// Any word, single-quoted, comes back unchanged whatever it holds (quotes excepted).
        #[test]
        fn single_quotes_are_literal(word in "[^'\\p{Cc}]{0,20}") {
            let command = format!("echo '{word}'");
            prop_assert_eq!(split(&command), Ok(vec!["echo".to_owned(), word]));
        }

        /// An unquoted metacharacter anywhere in a command is always refused.
        #[test]
        fn an_unquoted_metacharacter_is_refused(
            before in "[a-z ]{0,10}",
            meta in prop::sample::select(super::METACHARACTERS.to_vec()),
            after in "[a-z ]{0,10}",
        ) {
            let command = format!("run {before}{meta}{after}");
            prop_assert!(split(&command).is_err(), "accepted {:?}", command);
        }
    }
}
