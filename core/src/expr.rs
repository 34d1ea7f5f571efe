//! The answer-formula language of quiz.toml.
//!
//! Grammar (whitespace is free between tokens):
//!
//! ```text
//! expr    = term (("+" | "-") term)*
//! term    = unary (("*" | "×" | "/") unary)*
//! unary   = ("-" | "+") unary | power
//! power   = atom ("^" unary)?          // right-associative: 2^3^2 = 2^9
//! atom    = number | name | name "(" expr ("," expr)* ")" | "(" expr ")"
//! number  = digits ["." digits] [("e" | "E") ["+" | "-"] digits]   // "_" allowed between digits
//! name    = (letter | "_") (letter | digit | "_")*
//! ```
//!
//! Unary minus binds looser than `^`, as in mathematics: `-2^2` is `-4`, and `2^-1` is `0.5`.
//! Functions: `sqrt log2 ln exp ceil floor round` (one argument) and `min max` (one or more).
//!
//! Evaluation goes through the pure-Rust `libm` crate rather than the platform's maths library,
//! so a quiz answer has the same bits on wasm32 and native.

use std::collections::BTreeSet;
use std::fmt;

/// A parsed formula.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Num(f64),
    /// A parameter name, and the byte offset where it was written (for error messages).
    Var(String, usize),
    Neg(Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
    Call(Func, Vec<Expr>, usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Sqrt,
    Log2,
    Ln,
    Exp,
    Ceil,
    Floor,
    Round,
    Min,
    Max,
}

impl Func {
    const ALL: [(&'static str, Func); 9] = [
        ("sqrt", Func::Sqrt),
        ("log2", Func::Log2),
        ("ln", Func::Ln),
        ("exp", Func::Exp),
        ("ceil", Func::Ceil),
        ("floor", Func::Floor),
        ("round", Func::Round),
        ("min", Func::Min),
        ("max", Func::Max),
    ];

    fn from_name(name: &str) -> Option<Func> {
        Func::ALL.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }

    pub fn name(self) -> &'static str {
        Func::ALL.iter().find(|(_, f)| *f == self).map(|(n, _)| *n).unwrap_or("?")
    }

    fn variadic(self) -> bool {
        matches!(self, Func::Min | Func::Max)
    }
}

/// What went wrong, and where: `pos` is a byte offset into the formula.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    pub pos: usize,
    pub message: String,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at column {}: {}", self.pos + 1, self.message)
    }
}

fn err<T>(pos: usize, message: impl Into<String>) -> Result<T, ExprError> {
    Err(ExprError { pos, message: message.into() })
}

/// Parses a whole formula; trailing input is an error.
pub fn parse(src: &str) -> Result<Expr, ExprError> {
    let mut p = Parser { src, pos: 0 };
    p.skip_ws();
    if p.at_end() {
        return err(0, "the formula is empty: write an expression such as `2 * layers`");
    }
    let e = p.expr()?;
    p.skip_ws();
    if !p.at_end() {
        return err(p.pos, format!("unexpected `{}`: expected an operator or the end", p.peek_char()));
    }
    Ok(e)
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.src[self.pos..]
    }
    fn at_end(&self) -> bool {
        self.pos >= self.src.len()
    }
    fn peek_char(&self) -> char {
        self.rest().chars().next().unwrap_or('\0')
    }
    fn skip_ws(&mut self) {
        while let Some(c) = self.rest().chars().next() {
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
    }
    /// Consumes `tok` (after whitespace) if it is next.
    fn eat(&mut self, tok: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(tok) {
            self.pos += tok.len();
            true
        } else {
            false
        }
    }

    fn expr(&mut self) -> Result<Expr, ExprError> {
        let mut lhs = self.term()?;
        loop {
            let op = if self.eat("+") {
                Op::Add
            } else if self.eat("-") {
                Op::Sub
            } else {
                return Ok(lhs);
            };
            let rhs = self.term()?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn term(&mut self) -> Result<Expr, ExprError> {
        let mut lhs = self.unary()?;
        loop {
            let op = if self.eat("*") || self.eat("×") {
                Op::Mul
            } else if self.eat("/") {
                Op::Div
            } else {
                return Ok(lhs);
            };
            let rhs = self.unary()?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn unary(&mut self) -> Result<Expr, ExprError> {
        if self.eat("-") {
            Ok(Expr::Neg(Box::new(self.unary()?)))
        } else if self.eat("+") {
            self.unary()
        } else {
            self.power()
        }
    }

    fn power(&mut self) -> Result<Expr, ExprError> {
        let base = self.atom()?;
        if self.eat("^") {
            // The exponent is a `unary`, which itself reaches `power`: that is the right
            // associativity, and it lets `2^-1` mean one half.
            let exp = self.unary()?;
            return Ok(Expr::Bin(Op::Pow, Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Expr, ExprError> {
        self.skip_ws();
        let start = self.pos;
        let c = self.peek_char();
        if self.at_end() {
            return err(start, "the formula ends too early: expected a number, a name or `(`");
        }
        if c == '(' {
            self.pos += 1;
            let e = self.expr()?;
            if !self.eat(")") {
                return err(self.pos, "missing `)`: close the parenthesis opened here");
            }
            return Ok(e);
        }
        if c.is_ascii_digit() || c == '.' {
            return self.number();
        }
        if c.is_alphabetic() || c == '_' {
            let len = self.rest().find(|ch: char| !(ch.is_alphanumeric() || ch == '_')).unwrap_or(self.rest().len());
            let name = &self.src[start..start + len];
            self.pos += len;
            self.skip_ws();
            if self.rest().starts_with('(') {
                let Some(func) = Func::from_name(name) else {
                    let known: Vec<&str> = Func::ALL.iter().map(|(n, _)| *n).collect();
                    return err(start, format!("unknown function `{name}`: use one of {}", known.join(", ")));
                };
                self.pos += 1;
                let mut args = vec![self.expr()?];
                while self.eat(",") {
                    args.push(self.expr()?);
                }
                if !self.eat(")") {
                    return err(self.pos, format!("missing `)` after the arguments of `{name}`"));
                }
                if !func.variadic() && args.len() != 1 {
                    return err(start, format!("`{name}` takes one argument, not {}", args.len()));
                }
                return Ok(Expr::Call(func, args, start));
            }
            return Ok(Expr::Var(name.to_owned(), start));
        }
        err(start, format!("unexpected `{c}`: expected a number, a name or `(`"))
    }

    fn number(&mut self) -> Result<Expr, ExprError> {
        let start = self.pos;
        let bytes = self.src.as_bytes();
        let mut i = self.pos;
        let digits = |i: &mut usize| {
            let from = *i;
            while *i < bytes.len() && (bytes[*i].is_ascii_digit() || (bytes[*i] == b'_' && *i > from)) {
                *i += 1;
            }
            *i - from
        };
        let mut n = digits(&mut i);
        if i < bytes.len() && bytes[i] == b'.' {
            i += 1;
            n += digits(&mut i);
        }
        if n == 0 {
            return err(start, "a lone `.` is not a number: write `0.5`, not `.`");
        }
        if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
            let mut j = i + 1;
            if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
                j += 1;
            }
            if digits(&mut j) > 0 {
                i = j;
            }
        }
        let text: String = self.src[start..i].chars().filter(|&c| c != '_').collect();
        self.pos = i;
        match text.parse::<f64>() {
            Ok(v) => Ok(Expr::Num(v)),
            Err(_) => err(start, format!("`{text}` is not a number")),
        }
    }
}

impl Expr {
    /// Every parameter name the formula uses, sorted.
    pub fn variables(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.collect_vars(&mut out);
        out
    }

    fn collect_vars(&self, out: &mut BTreeSet<String>) {
        match self {
            Expr::Num(_) => {}
            Expr::Var(name, _) => {
                out.insert(name.clone());
            }
            Expr::Neg(e) => e.collect_vars(out),
            Expr::Bin(_, a, b) => {
                a.collect_vars(out);
                b.collect_vars(out);
            }
            Expr::Call(_, args, _) => args.iter().for_each(|a| a.collect_vars(out)),
        }
    }

    /// Evaluates with `lookup` giving each parameter's value. A name without a value, division
    /// by zero and any non-finite result (ln of a negative, overflow) are errors.
    pub fn eval(&self, lookup: &dyn Fn(&str) -> Option<f64>) -> Result<f64, ExprError> {
        let v = match self {
            Expr::Num(v) => *v,
            Expr::Var(name, pos) => match lookup(name) {
                Some(v) => v,
                None => return err(*pos, format!("unknown name `{name}`: declare it in `params`")),
            },
            Expr::Neg(e) => -e.eval(lookup)?,
            Expr::Bin(op, a, b) => {
                let (x, y) = (a.eval(lookup)?, b.eval(lookup)?);
                match op {
                    Op::Add => x + y,
                    Op::Sub => x - y,
                    Op::Mul => x * y,
                    Op::Div => {
                        if y == 0.0 {
                            return err(b.pos(), "division by zero for these parameter values");
                        }
                        x / y
                    }
                    Op::Pow => libm::pow(x, y),
                }
            }
            Expr::Call(func, args, pos) => {
                let vals = args.iter().map(|a| a.eval(lookup)).collect::<Result<Vec<f64>, _>>()?;
                let x = vals[0];
                match func {
                    Func::Sqrt => libm::sqrt(x),
                    Func::Log2 => libm::log2(x),
                    Func::Ln => libm::log(x),
                    Func::Exp => libm::exp(x),
                    Func::Ceil => libm::ceil(x),
                    Func::Floor => libm::floor(x),
                    Func::Round => libm::round(x),
                    Func::Min => vals.iter().copied().fold(f64::INFINITY, f64::min),
                    Func::Max => vals.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                }
                .pipe_check(*pos, func.name())?
            }
        };
        if v.is_finite() { Ok(v) } else { err(self.pos(), "the result is not a finite number for these parameter values") }
    }

    /// Where this sub-expression starts, as best known (numbers and operators do not keep one).
    fn pos(&self) -> usize {
        match self {
            Expr::Var(_, p) | Expr::Call(_, _, p) => *p,
            Expr::Neg(e) => e.pos(),
            Expr::Bin(_, a, _) => a.pos(),
            Expr::Num(_) => 0,
        }
    }
}

trait PipeCheck {
    fn pipe_check(self, pos: usize, name: &str) -> Result<f64, ExprError>;
}

impl PipeCheck for f64 {
    fn pipe_check(self, pos: usize, name: &str) -> Result<f64, ExprError> {
        if self.is_finite() {
            Ok(self)
        } else {
            err(pos, format!("`{name}` is undefined for these parameter values"))
        }
    }
}

/// Parses and evaluates in one go, with `vars` as (name, value) pairs.
pub fn eval_str(src: &str, vars: &[(&str, f64)]) -> Result<f64, ExprError> {
    parse(src)?.eval(&|name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| *v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(src: &str) -> String {
        match eval_str(src, &[("layers", 12.0), ("x", 3.0), ("n_kv", 2.0)]) {
            Ok(v) => format!("{v}"),
            Err(e) => format!("error {e}"),
        }
    }

    #[test]
    fn table() {
        let cases = [
            ("1 + 2 * 3", "7"),
            ("(1 + 2) * 3", "9"),
            ("2 ^ 3 ^ 2", "512"),
            ("-2 ^ 2", "-4"),
            ("2 ^ -1", "0.5"),
            ("--3", "3"),
            ("10 - 4 - 3", "3"),
            ("24 / 4 / 2", "3"),
            ("2 * layers * n_kv", "48"),
            ("3 × x", "9"),
            ("1e3 + 1_000", "2000"),
            ("2.5E-1", "0.25"),
            ("sqrt(16) + log2(1024) + ln(1) + exp(0)", "15"),
            ("ceil(2.1) + floor(2.9) + round(2.5)", "8"),
            ("min(3, 1, 2) + max(x, 10)", "11"),
            ("min(7)", "7"),
            ("", "error at column 1: the formula is empty: write an expression such as `2 * layers`"),
            ("1 +", "error at column 4: the formula ends too early: expected a number, a name or `(`"),
            ("(1 + 2", "error at column 7: missing `)`: close the parenthesis opened here"),
            ("1 2", "error at column 3: unexpected `2`: expected an operator or the end"),
            ("foo(1)", "error at column 1: unknown function `foo`: use one of sqrt, log2, ln, exp, ceil, floor, round, min, max"),
            ("sqrt(1, 2)", "error at column 1: `sqrt` takes one argument, not 2"),
            ("2 * heads", "error at column 5: unknown name `heads`: declare it in `params`"),
            ("1 / (x - 3)", "error at column 6: division by zero for these parameter values"),
            ("ln(0 - 1)", "error at column 1: `ln` is undefined for these parameter values"),
            ("10 ^ 400", "error at column 1: the result is not a finite number for these parameter values"),
            ("1 $ 2", "error at column 3: unexpected `$`: expected an operator or the end"),
            (".", "error at column 1: a lone `.` is not a number: write `0.5`, not `.`"),
        ];
        for (src, want) in cases {
            assert_eq!(ev(src), want, "formula {src:?}");
        }
    }

    #[test]
    fn variables_are_collected_sorted() {
        let e = parse("b * a + max(c, a) ^ 2").unwrap();
        assert_eq!(e.variables().into_iter().collect::<Vec<_>>(), ["a", "b", "c"]);
    }

    proptest::proptest! {
        /// The evaluator agrees with Rust's own arithmetic on sums and products of integers,
        /// which f64 represents exactly in this range.
        #[test]
        fn agrees_with_integer_arithmetic(a in -1000i64..1000, b in -1000i64..1000, c in 1i64..1000) {
            let src = format!("{a} + {b} * {c} - ({a} - {b})");
            let want = (a + b * c - (a - b)) as f64;
            proptest::prop_assert_eq!(eval_str(&src, &[]).unwrap(), want);
        }

        /// Parsing never panics, whatever the input.
        #[test]
        fn parse_never_panics(s in "\\PC{0,40}") {
            let _ = parse(&s);
        }
    }
}
