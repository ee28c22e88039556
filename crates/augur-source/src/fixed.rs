//! Fixed-form to free-form normalization.
//!
//! The normalizer keeps one output line per input line and keeps columns where
//! they were, so that a position in the free-form text maps back to the same
//! line and (almost always) the same column of the fixed-form original. Only
//! DEC tab-format lines move their statement text; their shift is recorded as
//! a per-line column offset.

/// Last column of statement text in fixed form; later columns are ignored.
const LAST_COL: usize = 72;

/// The result of [`normalize_fixed`]: free-form text and a column offset per line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Normalized {
    /// Free-form text with exactly as many lines as the input (each line ends with `\n`).
    pub text: String,
    /// For each line of `text`: original 1-based column = normalized 1-based column + offset.
    pub col_offsets: Vec<i32>,
}

/// Splits `text` into lines the way [`str::lines`] counts them: on `\n`, with a
/// trailing `\r` removed and no extra empty line after a final newline.
pub(crate) fn split_lines(text: &str) -> Vec<&str> {
    let mut v: Vec<&str> = text.split('\n').collect();
    if text.is_empty() || text.ends_with('\n') {
        v.pop();
    }
    v.into_iter()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

/// Lexical state at the end of a (partial) statement line, carried into its continuation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lex {
    /// Outside any character context.
    Normal,
    /// Inside a quoted string opened by this quote character.
    Quote(char),
    /// Inside a Hollerith constant with this many characters still to come.
    Hollerith(usize),
}

/// What kind of line an output line is, for continuation bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Comment, blank or passthrough line: continuation chains skip over it.
    Other,
    /// A statement line (initial or continuation).
    Code,
    /// A directive line (`!$OMP`, `!$ACC`, `!HPF$`), initial or continuation.
    Directive,
}

#[derive(Debug, Clone)]
struct OutLine {
    /// Everything before the inline comment (label, continuation mark, statement text).
    code: String,
    /// The inline comment (from its `!`) or, for comment lines, the whole line.
    comment: String,
    offset: i32,
    kind: Kind,
    /// The code part ends inside a character context (and was padded to column 72).
    open: bool,
}

impl OutLine {
    fn other(text: String, offset: i32) -> OutLine {
        OutLine {
            code: String::new(),
            comment: text,
            offset,
            kind: Kind::Other,
            open: false,
        }
    }

    /// Appends the free-form continuation `&` to the code part.
    fn append_amp(&mut self) {
        if self.open {
            self.code.push('&');
            return;
        }
        let trimmed_len = self.code.trim_end().len();
        let blanks = self.code.len() - trimmed_len;
        self.code.truncate(trimmed_len);
        // Fixed form joins the continuation after blanks up to column 72, and
        // blanks are insignificant there; free form needs a choice. A line
        // filled to column 72 most likely splits a token (`12` / `34` is
        // 1234), so it joins directly; a shorter line was broken between
        // tokens (`REAL` / `X`), so a blank keeps them apart.
        let used = if self.code.chars().count() >= LAST_COL {
            self.code.push('&');
            1
        } else {
            self.code.push_str(" &");
            2
        };
        if !self.comment.is_empty() {
            // Keep the comment where it was when there was room, else one blank.
            let pad = blanks.saturating_sub(used).max(1);
            self.code.push_str(&" ".repeat(pad));
        }
    }
}

/// Converts fixed-form Fortran source to free-form text the parser understands.
///
/// Line `i` of the output corresponds to line `i` of the input. Comment lines
/// (`C`, `c`, `*`, `!`, `D`, `d` in column 1, or blank through column 72)
/// become `!` comments; `C$OMP`/`*$OMP`/`!$OMP`, `$ACC` and `HPF$` directives
/// become free-form directives; columns after 72 are dropped; continuation
/// lines get `&` in column 6 and the previous statement line a trailing `&`
/// (after padding to column 72 when a string or Hollerith constant continues);
/// DEC tab-format lines are expanded so that the statement starts in column 7;
/// dotted operators and logical literals written with blanks inside
/// (`. EQ .`) are squeezed, their blanks moved after them; and variables
/// named `CLASS` or `ENUM`, which the parser takes for keywords, get a
/// same-length stand-in (`cls_0`, `en_0`) throughout the file unless the word
/// is a global name or a keyword there. Never panics.
pub fn normalize_fixed(text: &str) -> Normalized {
    let mut lines = LineConverter::new();
    for raw in split_lines(text) {
        lines.push(raw);
    }
    lines.finish()
}

/// The fixed-form lines converted so far, and what a continuation line needs
/// to know of the lines before it.
struct LineConverter {
    out: Vec<OutLine>,
    /// Index of the last statement line.
    last_code: Option<usize>,
    /// The lexical state at the end of the last statement line.
    lex: Lex,
    /// Index of the last directive line.
    last_dir: Option<usize>,
    /// Names that F77 allows as variables but the parser takes for keywords.
    renames: Renames,
}

impl LineConverter {
    fn new() -> LineConverter {
        LineConverter {
            out: Vec::new(),
            last_code: None,
            lex: Lex::Normal,
            last_dir: None,
            renames: Renames::default(),
        }
    }

    /// Converts the next input line.
    fn push(&mut self, raw: &str) {
        let raw_chars: Vec<char> = raw.chars().collect();
        let (chars, offset) = expand_tabs(&raw_chars);
        let n = chars.len();
        let first = chars.first().copied().unwrap_or(' ');

        // Preprocessor lines left in the text: pass through untouched.
        if first == '#' {
            self.out.push(OutLine::other(raw.to_string(), 0));
            return;
        }

        // Comment lines by column 1.
        if matches!(first, 'C' | 'c' | '*' | '!' | 'D' | 'd') {
            self.column_one_comment(&chars, offset);
            return;
        }

        // Blank through column 72 (anything after 72 is a sequence number).
        let upto72 = &chars[..n.min(LAST_COL)];
        if upto72.iter().all(|c| c.is_whitespace()) {
            self.out.push(OutLine::other(String::new(), 0));
            return;
        }

        // `!` as the first non-blank character of columns 1-5: a comment line.
        let first_nb = upto72.iter().position(|c| !c.is_whitespace());
        if let Some(p) = first_nb {
            if p < 5 && upto72[p] == '!' {
                self.out.push(OutLine::other(raw.to_string(), 0));
                return;
            }
        }

        self.statement_line(upto72, first_nb, offset);
    }

    /// A line with a comment character in column 1: a directive, or a comment.
    fn column_one_comment(&mut self, chars: &[char], offset: i32) {
        let first = chars[0];
        let sentinel: String = chars.iter().skip(1).take(4).collect();
        let up = sentinel.to_ascii_uppercase();
        let is_dir = chars.len() >= 5 && matches!(up.as_str(), "$OMP" | "$ACC" | "HPF$");
        if is_dir && !matches!(first, 'D' | 'd') {
            self.directive_line(chars, &sentinel);
            return;
        }
        let mut s = String::from("!");
        s.extend(&chars[1..]);
        self.out.push(OutLine::other(s, offset));
    }

    /// A directive line (`C$OMP`, `*$ACC`, `!HPF$`, ...), initial or continuation.
    fn directive_line(&mut self, chars: &[char], sentinel: &str) {
        let n = chars.len();
        let col6 = chars.get(5).copied().unwrap_or(' ');
        let is_cont = !matches!(col6, ' ' | '0');
        let body_end = n.min(LAST_COL);
        let body: &[char] = if n > 6 {
            &chars[6..body_end.max(6)]
        } else {
            &[]
        };
        let (code_len, _) = scan(body, Lex::Normal);
        let mut code = String::from("!");
        code.push_str(sentinel);
        code.push(if is_cont { '&' } else { ' ' });
        code.extend(&body[..code_len]);
        let comment: String = body[code_len..].iter().collect();
        if is_cont {
            if let Some(i) = self.last_dir {
                self.out[i].append_amp();
            }
        }
        self.last_dir = Some(self.out.len());
        self.out.push(OutLine {
            code,
            comment,
            offset: 0,
            kind: Kind::Directive,
            open: false,
        });
    }

    /// A statement line: label (1-5), continuation mark (6), text (7-72).
    /// `first_nb` is the index of its first non-blank character.
    fn statement_line(&mut self, upto72: &[char], first_nb: Option<usize>, offset: i32) {
        let col6 = upto72.get(5).copied().unwrap_or(' ');
        let is_cont = !col6.is_whitespace() && col6 != '0';
        let body: &[char] = if upto72.len() > 6 { &upto72[6..] } else { &[] };
        let start = if is_cont { self.lex } else { Lex::Normal };
        let (code_len, end, normal) = scan_marks(body, start);
        let mut squeezed = body[..code_len].to_vec();
        squeeze_operators(&mut squeezed, &normal);
        let body_code = &squeezed[..];
        let comment: String = body[code_len..].iter().collect();

        if !is_cont
            && first_nb.is_some_and(|p| p >= 6)
            && body_code.iter().all(|c| c.is_whitespace())
        {
            // Only an inline comment: a comment line.
            self.out
                .push(OutLine::other(upto72.iter().collect(), offset));
            return;
        }
        if is_cont
            && self.last_code.is_some()
            && start == Lex::Normal
            && body_code.iter().all(|c| c.is_whitespace())
        {
            // An empty continuation line outside a character context adds nothing.
            let mut s: String = " ".repeat(6.min(upto72.len()));
            s.push_str(&comment);
            self.out.push(OutLine::other(s, offset));
            return;
        }

        if is_cont && start == Lex::Normal {
            self.join_split_power(&mut squeezed, &normal);
        }
        let mut normal = normal;
        if !is_cont {
            squeeze_end_file(&mut squeezed, &normal);
            if let Some((spaced, old_eq, new_eq)) = space_do_head(&squeezed, &normal) {
                // Blanks added after `DO` and its label: the later columns of this
                // line move right by as many (their diagnostics with them).
                let mut marks = vec![true; new_eq];
                marks.extend_from_slice(&normal[old_eq..]);
                normal = marks;
                squeezed = spaced;
            }
            space_keyword(&mut squeezed, &mut normal);
        }
        let body_code = &squeezed[..];
        let mut code = String::new();
        if is_cont {
            match self.last_code {
                Some(i) => {
                    self.out[i].append_amp();
                    code.push_str("     &");
                }
                None => code.push_str("      "),
            }
        } else {
            code.extend(&upto72[..upto72.len().min(5)]);
            if upto72.len() >= 6 {
                code.push(' ');
            }
        }
        let prefix = code.chars().count();
        self.renames
            .record(self.out.len(), prefix, body_code, &normal);
        code.extend(body_code);
        let open = end != Lex::Normal;
        if open {
            let have = code.chars().count();
            if have < LAST_COL {
                code.push_str(&" ".repeat(LAST_COL - have));
            }
        }
        self.lex = match end {
            // Blanks up to column 72 count towards a continued Hollerith constant.
            Lex::Hollerith(k) => {
                let pad = LAST_COL.saturating_sub(6 + body.len());
                if k > pad {
                    Lex::Hollerith(k - pad)
                } else {
                    Lex::Normal
                }
            }
            other => other,
        };
        self.last_code = Some(self.out.len());
        self.out.push(OutLine {
            code,
            comment,
            offset,
            kind: Kind::Code,
            open,
        });
    }

    /// A power operator split over a continuation (`... *` then `*  (x)` on the next
    /// line: blanks are insignificant in fixed form, so it is `**`): the continuation's
    /// `*` moves to the end of the line before.
    fn join_split_power(&mut self, body: &mut [char], normal: &[bool]) {
        let Some(prev) = self.last_code.map(|i| &mut self.out[i]) else {
            return;
        };
        let Some(p) = body.iter().position(|c| !c.is_whitespace()) else {
            return;
        };
        if body[p] != '*' || !normal[p] || !prev.code.trim_end().ends_with('*') || prev.open {
            return;
        }
        let kept = prev.code.trim_end().len();
        prev.code.truncate(kept);
        prev.code.push('*');
        body[p] = ' ';
    }

    /// The converted text and its column offsets.
    fn finish(mut self) -> Normalized {
        self.renames.apply(&mut self.out);
        let mut text = String::new();
        let mut col_offsets = Vec::with_capacity(self.out.len());
        for l in &self.out {
            debug_assert!(l.kind == Kind::Other || !l.code.contains('\n'));
            text.push_str(&l.code);
            text.push_str(&l.comment);
            text.push('\n');
            col_offsets.push(l.offset);
        }
        Normalized { text, col_offsets }
    }
}

/// Expands a DEC tab-format line: a tab in columns 1-6 (after an optional
/// label) puts the next character in column 7, or in column 6 when it is a
/// digit 1-9 (a continuation line). Returns the expanded line and the column
/// offset of its statement text (original column = new column + offset).
fn expand_tabs(line: &[char]) -> (Vec<char>, i32) {
    let mut tab = None;
    for (i, &c) in line.iter().enumerate().take(6) {
        if c == '\t' {
            tab = Some(i);
            break;
        }
        if !(c == ' ' || c.is_ascii_digit()) {
            break;
        }
    }
    let Some(t) = tab else {
        return (line.to_vec(), 0);
    };
    let mut out: Vec<char> = line[..t].to_vec();
    out.resize(5, ' ');
    let rest = &line[t + 1..];
    // 1-based original column of rest[0] is t + 2.
    match rest.first() {
        Some(&d) if ('1'..='9').contains(&d) => {
            out.push(d);
            out.extend_from_slice(&rest[1..]);
            // rest[1] was at column t + 3 and is now at column 7.
            (out, t as i32 + 3 - 7)
        }
        _ => {
            out.push(' ');
            out.extend_from_slice(rest);
            (out, t as i32 + 2 - 7)
        }
    }
}

/// Scans statement text starting in lexical state `start`. Returns the length
/// of the code part (the index of an inline `!` comment, or the whole length)
/// and the lexical state at the end of the code part.
fn scan(body: &[char], start: Lex) -> (usize, Lex) {
    let (len, end, _) = scan_marks(body, start);
    (len, end)
}

/// [`scan`], also marking which characters of the code part are outside any
/// character context (`true`): not in a string or Hollerith constant, nor one
/// of their delimiters or `H` markers.
fn scan_marks(body: &[char], start: Lex) -> (usize, Lex, Vec<bool>) {
    let mut state = start;
    let mut marks = vec![false; body.len()];
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        if state == Lex::Normal && c != '\'' && c != '"' {
            marks[i] = true;
        }
        match state {
            Lex::Quote(q) => {
                if c == q {
                    if body.get(i + 1) == Some(&q) {
                        i += 1;
                    } else {
                        state = Lex::Normal;
                    }
                }
            }
            Lex::Hollerith(k) => {
                state = if k <= 1 {
                    Lex::Normal
                } else {
                    Lex::Hollerith(k - 1)
                };
            }
            Lex::Normal => {
                if c == '!' {
                    marks.truncate(i);
                    return (i, Lex::Normal, marks);
                } else if c == '\'' || c == '"' {
                    state = Lex::Quote(c);
                } else if c.is_ascii_digit() && hollerith_may_start(body, i) {
                    let mut j = i;
                    while j < body.len() && body[j].is_ascii_digit() {
                        j += 1;
                    }
                    marks[i..j].fill(true);
                    if matches!(body.get(j), Some('H' | 'h')) {
                        let count: usize =
                            body[i..j].iter().collect::<String>().parse().unwrap_or(0);
                        if count > 0 {
                            state = Lex::Hollerith(count);
                            i = j + 1;
                            continue;
                        }
                    }
                    i = j;
                    continue;
                }
            }
        }
        i += 1;
    }
    (body.len(), state, marks)
}

/// Whether a digit string at `i` can be the count of a Hollerith constant,
/// judging by the preceding non-blank character: the start of the statement
/// text, `(`, `,`, `/`, `=`, `.` (as in `.EQ.`), or a `*` that follows a
/// repeat count (`DATA X/3*2HAB/`), but not `REAL*8H` nor an identifier like `X2H`.
fn hollerith_may_start(body: &[char], i: usize) -> bool {
    let mut k = i;
    let prev = loop {
        if k == 0 {
            break None;
        }
        k -= 1;
        if !body[k].is_whitespace() {
            break Some((k, body[k]));
        }
    };
    match prev {
        None => false,
        Some((_, '(' | ',' | '/' | '=' | '.')) => true,
        Some((k, '*')) => {
            let before = body[..k].iter().rev().find(|c| !c.is_whitespace());
            matches!(before, Some(c) if c.is_ascii_digit())
        }
        _ => false,
    }
}

/// The dotted operators and logical literals whose blanks [`squeeze_operators`] removes.
const DOTTED_WORDS: [&str; 13] = [
    "eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not", "eqv", "neqv", "true", "false",
];

/// Squeezes the blanks out of dotted operators and logical literals spelled
/// with blanks inside (`. EQ .`, `.and .`, `. true._ 8`), which fixed form
/// allows and free form does not, and puts the removed blanks right after
/// the token so that every later column stays put. Only characters marked
/// `normal` (outside strings and Hollerith constants) are touched.
fn squeeze_operators(code: &mut [char], normal: &[bool]) {
    let mut i = 0;
    while i < code.len() {
        if code[i] == '*' && normal[i] {
            // `* *`: the power operator written with blanks inside.
            let j = (i + 1..code.len()).find(|&j| !code[j].is_whitespace());
            if let Some(j) = j.filter(|&j| j > i + 1 && code[j] == '*' && normal[j]) {
                code[i + 1] = '*';
                code[j] = ' ';
                i = j + 1;
                continue;
            }
        }
        if code[i] == '.' && normal[i] {
            if let Some(end) = dotted_token_end(code, normal, i) {
                let token: Vec<char> = code[i..end]
                    .iter()
                    .copied()
                    .filter(|c| !c.is_whitespace())
                    .collect();
                let (kept, blanks) = code[i..end].split_at_mut(token.len());
                kept.copy_from_slice(&token);
                blanks.fill(' ');
                i = end;
                continue;
            }
        }
        i += 1;
    }
}

/// `END FILE u` (legal fixed form, blanks being insignificant) as `ENDFILE u`, the
/// removed blanks put after the keyword so that later columns stay put. A statement
/// with `=` outside parentheses is an assignment (to a variable `ENDFILEX`) and is left.
fn squeeze_end_file(code: &mut [char], normal: &[bool]) {
    let letters: Vec<usize> = code
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.is_whitespace())
        .take(7)
        .map(|(k, _)| k)
        .collect();
    let word: String = letters
        .iter()
        .map(|&k| code[k].to_ascii_lowercase())
        .collect();
    if word != "endfile" || letters.iter().any(|&k| !normal[k]) {
        return;
    }
    let (first, last) = (letters[0], letters[6]);
    if last - first == 6 {
        return;
    }
    let mut depth = 0i32;
    for (c, &n) in code[last + 1..].iter().zip(&normal[last + 1..]) {
        match (c, n) {
            ('(', true) => depth += 1,
            (')', true) => depth -= 1,
            ('=', true) if depth == 0 => return,
            _ => {}
        }
    }
    let kept: Vec<char> = letters.iter().map(|&k| code[k]).collect();
    code[first..first + 7].copy_from_slice(&kept);
    code[first + 7..=last].fill(' ');
}

/// `DO10I=1,10` and `DOI=1,N` (legal fixed form: blanks are insignificant) as
/// `DO 10 I=1,10` and `DO I=1,N`; `None` when the statement is not such a DO (an
/// assignment `DO10I=1.10` has no comma after `=` outside parentheses) or already has a
/// blank after `DO`. Also returns where the `=` was and where it is now.
fn space_do_head(code: &[char], normal: &[bool]) -> Option<(Vec<char>, usize, usize)> {
    let start = code.iter().position(|c| !c.is_whitespace())?;
    let head: String = code.get(start..start + 2)?.iter().collect();
    let after = *code.get(start + 2)?;
    if !head.eq_ignore_ascii_case("do") || !after.is_ascii_alphanumeric() {
        return None;
    }
    let eq = (start..code.len()).find(|&k| code[k] == '=' && normal[k])?;
    let mut depth = 0i32;
    let comma = code[eq + 1..].iter().zip(&normal[eq + 1..]).any(|(c, &n)| {
        match (c, n) {
            ('(', true) => depth += 1,
            (')', true) => depth -= 1,
            _ => {}
        }
        *c == ',' && n && depth == 0
    });
    let between: Vec<char> = code[start + 2..eq]
        .iter()
        .copied()
        .filter(|c| !c.is_whitespace())
        .collect();
    let digits = between.iter().take_while(|c| c.is_ascii_digit()).count();
    let var = &between[digits..];
    let var = var.strip_prefix(&[',']).unwrap_or(var);
    let name_ok = var.first().is_some_and(|c| c.is_ascii_alphabetic())
        && var.iter().all(|c| c.is_ascii_alphanumeric() || *c == '_');
    if !comma || !name_ok || !code[start..eq].iter().all(|&c| c != '(' && c != '\'') {
        return None;
    }
    let mut out: Vec<char> = code[..start + 2].to_vec();
    out.push(' ');
    if digits > 0 {
        out.extend(&between[..digits]);
        out.push(' ');
    }
    out.extend(var);
    let new_eq = out.len();
    out.extend(&code[eq..]);
    Some((out, eq, new_eq))
}

/// `GOTO44`, `GO TO44` and `CALLFOO(A)` (legal fixed form: blanks are insignificant) as
/// `GOTO 44`, `GO TO 44` and `CALL FOO(A)`, also as the action of a logical IF
/// (`IF(X.GT.0)GOTO44`): one blank inserted after the keyword, the later columns of the
/// line moving right by one. Only where no other reading exists: a GOTO is followed by
/// a label and nothing else (`GOTOK` may be an assigned GOTO or a variable), and a CALL
/// statement has no `=` outside parentheses (`CALLX(I) = 1` assigns to an array
/// `CALLX`).
fn space_keyword(code: &mut Vec<char>, normal: &mut Vec<bool>) {
    let Some(mut start) = code.iter().position(|c| !c.is_whitespace()) else {
        return;
    };
    if let Some(action) = logical_if_action(code, normal, start) {
        start = action;
    }
    if let Some(k) = keyword_end(code, normal, start) {
        code.insert(k, ' ');
        normal.insert(k, true);
    }
}

/// The start of the action of a logical IF statement starting at `start` (`IF (c)
/// action`), when the action starts with a letter.
fn logical_if_action(code: &[char], normal: &[bool], start: usize) -> Option<usize> {
    let mut letters = (start..code.len()).filter(|&k| !code[k].is_whitespace());
    let (i, f, open) = (letters.next()?, letters.next()?, letters.next()?);
    if !code[i].eq_ignore_ascii_case(&'i') || !code[f].eq_ignore_ascii_case(&'f') {
        return None;
    }
    if code[open] != '(' || !normal[open] {
        return None;
    }
    let mut depth = 0i32;
    let close = (open..code.len()).find(|&k| {
        match (code[k], normal[k]) {
            ('(', true) => depth += 1,
            (')', true) => depth -= 1,
            _ => {}
        }
        depth == 0
    })?;
    let action = (close + 1..code.len()).find(|&k| !code[k].is_whitespace())?;
    (code[action].is_ascii_alphabetic() && normal[action]).then_some(action)
}

/// Where a blank goes after the keyword of a `GOTO label` or `CALLname` statement
/// starting at `start` whose keyword is glued to what follows.
fn keyword_end(code: &[char], normal: &[bool], start: usize) -> Option<usize> {
    let word: Vec<usize> = (start..code.len())
        .filter(|&k| !code[k].is_whitespace())
        .take(4)
        .collect();
    let spelled: String = word.iter().map(|&k| code[k].to_ascii_lowercase()).collect();
    let &last = word.last()?;
    let next = last + 1;
    let rest = code.get(next..)?;
    if word.iter().any(|&k| !normal[k]) || rest.is_empty() || !normal[next] {
        return None;
    }
    match spelled.as_str() {
        "goto" => {
            let label = rest.iter().take_while(|c| c.is_ascii_digit()).count();
            let only_label = rest[label..].iter().all(|c| c.is_whitespace());
            (label > 0 && only_label).then_some(next)
        }
        "call" if last == start + 3 && rest[0].is_ascii_alphabetic() => {
            let mut depth = 0i32;
            let assigns = rest.iter().zip(&normal[next..]).any(|(c, &n)| {
                match (c, n) {
                    ('(', true) => depth += 1,
                    (')', true) => depth -= 1,
                    _ => {}
                }
                *c == '=' && n && depth == 0
            });
            (!assigns).then_some(next)
        }
        _ => None,
    }
}

/// If a dotted operator or logical literal starts at the `.` at `start`,
/// possibly with blanks inside, the index just past it (past a `_kind` suffix
/// on a logical literal).
fn dotted_token_end(code: &[char], normal: &[bool], start: usize) -> Option<usize> {
    let usable = |k: usize| k < code.len() && normal[k];
    let mut word = String::new();
    let mut k = start + 1;
    while usable(k) && (code[k].is_whitespace() || code[k].is_ascii_alphabetic()) {
        if !code[k].is_whitespace() {
            word.push(code[k].to_ascii_lowercase());
        }
        k += 1;
    }
    if !usable(k) || code[k] != '.' || !DOTTED_WORDS.contains(&word.as_str()) {
        return None;
    }
    let end = k + 1;
    if word != "true" && word != "false" {
        return Some(end);
    }
    // A kind suffix: `_` and a kind parameter, blanks allowed before each.
    let skip_blanks = |mut k: usize| {
        while usable(k) && code[k].is_whitespace() {
            k += 1;
        }
        k
    };
    let u = skip_blanks(end);
    if !usable(u) || code[u] != '_' {
        return Some(end);
    }
    let mut k = skip_blanks(u + 1);
    let kind_start = k;
    while usable(k) && (code[k].is_ascii_alphanumeric() || code[k] == '_') {
        k += 1;
    }
    Some(if k > kind_start { k } else { end })
}

/// Names that F77 programs use for variables but that the parser reads as
/// Fortran 90+ keywords, and the same-length stand-ins they get. Each
/// stand-in starts with the same letter, so implicit typing is unchanged.
const RENAMED_WORDS: [(&str, &str); 2] = [("class", "cls_"), ("enum", "en_")];

/// Where in the normalized statement lines a renamed word occurs, and whether
/// one of them is a global name (a procedure, program, or common block),
/// which cannot be renamed without breaking the link with other files, or the
/// Fortran 2003 keyword itself (`CLASS(T) :: X`, `CLASS IS`, `ENUM, BIND(C)`).
#[derive(Debug, Default)]
struct Renames {
    /// Output line, character index in its code part, index into [`RENAMED_WORDS`].
    hits: Vec<(usize, usize, usize)>,
    /// Words of [`RENAMED_WORDS`] seen as global names or as keywords.
    global: Vec<usize>,
    /// Lower-case names seen in the code (to pick stand-ins that do not collide).
    names: std::collections::HashSet<String>,
}

impl Renames {
    /// Records the names in the statement text `code` of output line `line`,
    /// whose first character is at character `prefix` of the line's code part.
    fn record(&mut self, line: usize, prefix: usize, code: &[char], normal: &[bool]) {
        let is_name = |k: usize| normal[k] && (code[k].is_ascii_alphanumeric() || code[k] == '_');
        let mut i = 0;
        while i < code.len() {
            if !is_name(i) {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < code.len() && is_name(j) {
                j += 1;
            }
            let word: String = code[i..j].iter().collect::<String>().to_ascii_lowercase();
            if let Some(w) = RENAMED_WORDS.iter().position(|r| r.0 == word) {
                if is_global_name(code, i, j) || is_keyword_use(code, i, j) {
                    self.global.push(w);
                }
                self.hits.push((line, prefix + i, w));
            }
            self.names.insert(word);
            i = j;
        }
    }

    /// Replaces the recorded words in `out` by their stand-ins, except words
    /// used as a global name anywhere in the file.
    fn apply(&self, out: &mut [OutLine]) {
        for (w, (_, stem)) in RENAMED_WORDS.iter().enumerate() {
            if self.global.contains(&w) || !self.hits.iter().any(|h| h.2 == w) {
                continue;
            }
            let Some(stand_in) = (0..10)
                .map(|d| format!("{stem}{d}"))
                .find(|n| !self.names.contains(n))
            else {
                continue;
            };
            for &(line, at, _) in self.hits.iter().filter(|h| h.2 == w) {
                let mut chars: Vec<char> = out[line].code.chars().collect();
                for (k, c) in stand_in.chars().enumerate() {
                    chars[at + k] = c;
                }
                out[line].code = chars.into_iter().collect();
            }
        }
    }
}

/// Whether the word at `code[i..j]` starts a Fortran 2003 statement: it
/// opens the statement and is followed by `IS`, `DEFAULT`, `,` or `::`, or
/// by a parenthesized list and then a name, `,` or `::` (`CLASS(T) X`).
/// It is also a keyword after `END` (`END ENUM`).
fn is_keyword_use(code: &[char], i: usize, j: usize) -> bool {
    let before: String = code[..i].iter().collect::<String>().to_ascii_lowercase();
    let before = before.trim_end();
    if before.ends_with("end") {
        return true;
    }
    if !(before.is_empty() || before.ends_with(';')) {
        return false;
    }
    let rest: String = code[j..].iter().collect::<String>().to_ascii_lowercase();
    let mut rest = rest.trim_start();
    if rest.starts_with('(') {
        let mut depth = 0;
        let Some(close) = rest.char_indices().find_map(|(k, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(k)
        }) else {
            return false;
        };
        rest = rest[close + 1..].trim_start();
        if rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return true;
        }
    }
    let next_word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    rest.starts_with(',') || rest.starts_with("::") || next_word == "is" || next_word == "default"
}

/// Whether the name at `code[i..j]` is a global name: it follows `CALL`,
/// `SUBROUTINE`, `FUNCTION`, `ENTRY`, `EXTERNAL`, `INTRINSIC` or `PROGRAM`,
/// or stands between slashes (a common block); or a name that a program's
/// input or output may spell, in a `NAMELIST` statement.
fn is_global_name(code: &[char], i: usize, j: usize) -> bool {
    let before: String = code[..i].iter().collect::<String>().to_ascii_lowercase();
    let before = before.trim_end();
    if before.trim_start().starts_with("namelist") {
        return true;
    }
    let after = code[j..].iter().find(|c| !c.is_whitespace());
    if before.ends_with('/') && after == Some(&'/') {
        return true;
    }
    let prev_word: String = before
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect::<Vec<char>>()
        .into_iter()
        .rev()
        .collect();
    matches!(
        prev_word.as_str(),
        "call" | "subroutine" | "function" | "entry" | "external" | "intrinsic" | "program"
    ) || (before.ends_with(',') && before.contains("external"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> Vec<String> {
        let n = normalize_fixed(s);
        assert_eq!(n.text.lines().count(), s.lines().count(), "line count");
        assert_eq!(n.col_offsets.len(), s.lines().count());
        n.text.lines().map(str::to_string).collect()
    }

    #[test]
    fn comment_lines_in_column_one() {
        let src = "C comment\nc lower\n* star\n! bang\nD debug\nd debug2\n      X = 1\n";
        let out = norm(src);
        assert_eq!(
            out,
            vec![
                "! comment",
                "! lower",
                "! star",
                "! bang",
                "! debug",
                "! debug2",
                "      X = 1"
            ]
        );
    }

    #[test]
    fn blank_lines_and_sequence_only_lines() {
        let src = format!("\n     \n{}ABCD0010\n      Y = 2\n", " ".repeat(72));
        let out = norm(&src);
        assert_eq!(out, vec!["", "", "", "      Y = 2"]);
    }

    #[test]
    fn bang_in_label_field_is_comment() {
        let out = norm("   ! note\n      ! also a comment\n");
        assert_eq!(out, vec!["   ! note", "      ! also a comment"]);
    }

    #[test]
    fn directives_become_free_form() {
        let src = "C$OMP PARALLEL DO\nc$omp end parallel do\n*$OMP BARRIER\n!$OMP BARRIER\nC$ACC KERNELS\nCHPF$ DISTRIBUTE A\n*HPF$ X\n!HPF$ Y\n";
        let out = norm(src);
        assert_eq!(
            out,
            vec![
                "!$OMP PARALLEL DO",
                "!$omp end parallel do",
                "!$OMP BARRIER",
                "!$OMP BARRIER",
                "!$ACC KERNELS",
                "!HPF$ DISTRIBUTE A",
                "!HPF$ X",
                "!HPF$ Y"
            ]
        );
    }

    #[test]
    fn directive_continuation() {
        let src = "C$OMP PARALLEL DO ! first\nC$OMP&PRIVATE(I)\nc$omp+ SHARED(A)\n";
        let out = norm(src);
        assert_eq!(
            out,
            vec![
                "!$OMP PARALLEL DO & ! first",
                "!$OMP&PRIVATE(I) &",
                "!$omp& SHARED(A)"
            ]
        );
    }

    #[test]
    fn directive_col6_zero_and_truncation() {
        let src = format!("C$OMP0BARRIER{}SEQ00010\n", " ".repeat(59));
        let out = norm(&src);
        assert_eq!(out, vec![format!("!$OMP BARRIER{}", " ".repeat(59))]);
    }

    #[test]
    fn labels_kept() {
        let out = norm("   10 CONTINUE\n  100 FORMAT(I5)\n99999 STOP\n  200\n");
        assert_eq!(
            out,
            vec!["   10 CONTINUE", "  100 FORMAT(I5)", "99999 STOP", "  200"]
        );
    }

    #[test]
    fn column_six_zero_is_not_continuation() {
        let out = norm("     0X = 1\n");
        assert_eq!(out, vec!["      X = 1"]);
    }

    #[test]
    fn continuation_lines() {
        let src = "      X = A +\n     1    B +\n     2    C\n      Y = 1\n";
        let out = norm(src);
        assert_eq!(
            out,
            vec![
                "      X = A + &",
                "     &    B + &",
                "     &    C",
                "      Y = 1"
            ]
        );
    }

    #[test]
    fn continuation_across_comment_and_blank_lines() {
        let src = "      CALL F(A,\nC the next argument\n\n     *       B)\n";
        let out = norm(src);
        assert_eq!(
            out,
            vec![
                "      CALL F(A, &",
                "! the next argument",
                "",
                "     &       B)"
            ]
        );
    }

    #[test]
    fn continuation_before_inline_comment() {
        let src = "      X = A +   ! add\n     &    B\n";
        let out = norm(src);
        assert_eq!(out, vec!["      X = A + & ! add", "     &    B"]);
    }

    #[test]
    fn split_token_joins_without_blank() {
        // A line filled to column 72 joins its continuation directly: blanks
        // are insignificant in fixed form, so `...12` / `34` is 1234.
        let first = format!("      X = {}12", "0".repeat(72 - 12));
        let out = norm(&format!("{first}\n     &34\n"));
        assert_eq!(out, vec![format!("{first}&"), "     &34".to_string()]);
        // A shorter line was broken between tokens: `REAL` / `X` stays apart.
        let out = norm("      REAL\n     &X\n");
        assert_eq!(out, vec!["      REAL &", "     &X"]);
    }

    #[test]
    fn string_split_across_continuation_keeps_trailing_blanks() {
        let src = "      S = 'AB   \n     &CD'\n";
        let out = norm(src);
        let first = format!("      S = 'AB{}&", " ".repeat(72 - 13));
        assert_eq!(first.chars().count(), 73);
        assert_eq!(out, vec![first, "     &CD'".to_string()]);
    }

    #[test]
    fn string_with_bang_and_doubled_quotes() {
        let src = "      S = 'it''s ! not a comment' ! comment\n      T = \"a!b\"\n";
        let out = norm(src);
        assert_eq!(
            out,
            vec![
                "      S = 'it''s ! not a comment' ! comment",
                "      T = \"a!b\""
            ]
        );
        // A doubled quote split across a continuation still joins into one string.
        let out = norm("      S = 'it'\n     &'s ! x'\n");
        assert_eq!(out, vec!["      S = 'it' &", "     &'s ! x'"]);
    }

    #[test]
    fn truncation_after_column_72() {
        let stmt = format!("      X = 1{}", " ".repeat(72 - 11));
        let src = format!(
            "{stmt}PROG0010\n      Y = 2   ! c{}SEQ2\n",
            " ".repeat(72 - 17)
        );
        let out = norm(&src);
        assert_eq!(out[0].trim_end(), "      X = 1");
        assert!(!out[0].contains("PROG"));
        assert_eq!(out[1].trim_end(), "      Y = 2   ! c");
        // A long statement is cut exactly at column 72.
        let long = format!("      X = {}", "1".repeat(70));
        let out = norm(&long);
        assert_eq!(out[0].chars().count(), 72);
    }

    #[test]
    fn tab_format_statement_and_label() {
        let n = normalize_fixed("\tX = 1\n10\tY = 2\n");
        let out: Vec<&str> = n.text.lines().collect();
        assert_eq!(out, vec!["      X = 1", "10    Y = 2"]);
        // `X` was in column 2, now column 7.
        assert_eq!(n.col_offsets, vec![-5, -3]);
    }

    #[test]
    fn tab_format_continuation() {
        let n = normalize_fixed("\tX = 1 +\n\t1 2\n");
        let out: Vec<&str> = n.text.lines().collect();
        assert_eq!(out, vec!["      X = 1 + &", "     & 2"]);
        // ` 2`: the blank was in column 3, now column 7.
        assert_eq!(n.col_offsets, vec![-5, -4]);
    }

    #[test]
    fn hollerith_with_bang_and_quotes() {
        let src = "  100 FORMAT(1X,5HA!B'C,I5) ! real comment\n      DATA X/3*2H!'/\n      CALL F(4H\"!!\")\n";
        let out = norm(src);
        assert_eq!(
            out,
            vec![
                "  100 FORMAT(1X,5HA!B'C,I5) ! real comment",
                "      DATA X/3*2H!'/",
                "      CALL F(4H\"!!\")"
            ]
        );
    }

    #[test]
    fn hollerith_lookalikes_are_not_hollerith() {
        // REAL*8H declares H; X2H is an identifier.
        let out = norm("      REAL*8H ! c\n      X2H = 1 ! d\n");
        assert_eq!(out, vec!["      REAL*8H ! c", "      X2H = 1 ! d"]);
    }

    #[test]
    fn hollerith_continued() {
        let src = "      DATA X/70HAB\n     &CD/\n";
        let out = norm(src);
        assert_eq!(out[0].chars().count(), 73);
        assert!(out[0].ends_with('&'));
        // Still inside the Hollerith constant: padded to column 72 as well.
        assert_eq!(out[1].trim_end(), "     &CD/");
        assert_eq!(out[1].chars().count(), 72);
    }

    #[test]
    fn inline_comment_and_semicolons() {
        let out = norm("      X = 1; Y = 2 ! set\n");
        assert_eq!(out, vec!["      X = 1; Y = 2 ! set"]);
    }

    #[test]
    fn crlf_tolerated() {
        let n = normalize_fixed("C c\r\n      X = 1\r\n     &+2\r\n");
        let out: Vec<&str> = n.text.lines().collect();
        assert_eq!(out, vec!["! c", "      X = 1 &", "     &+2"]);
        assert!(!n.text.contains('\r'));
    }

    #[test]
    fn short_lines() {
        let out = norm("  1\n 12\nX\n");
        assert_eq!(out, vec!["  1", " 12", "X"]);
    }

    #[test]
    fn empty_continuation_line_outside_string() {
        let out = norm("      X = 1 +\n     &\n     &2\n");
        assert_eq!(out, vec!["      X = 1 + &", "      ", "     &2"]);
    }

    #[test]
    fn no_trailing_newline_and_empty() {
        assert_eq!(normalize_fixed("").text, "");
        assert_eq!(normalize_fixed("      END").text, "      END\n");
        assert_eq!(normalize_fixed("\n\n").text.lines().count(), 2);
    }

    #[test]
    fn unicode_in_comments_and_strings() {
        let out = norm("C héllo wörld\n      S = 'é'\n");
        assert_eq!(out, vec!["! héllo wörld", "      S = 'é'"]);
    }

    #[test]
    fn dotted_operators_with_blanks_are_squeezed() {
        let src = "      IF (N . EQ. 250) THEN\n      L = (A .and . B) .OR.. NOT. C\n      L = X . GT .Y .NEQV. . true.\n      L = . FALSE . _ 4 .eqv.M\n";
        let out = norm(src);
        assert_eq!(
            out,
            vec![
                "      IF (N .EQ.  250) THEN",
                "      L = (A .and.  B) .OR..NOT.  C",
                "      L = X .GT.  Y .NEQV. .true. ",
                "      L = .FALSE._4     .eqv.M",
            ]
        );
        // Every line keeps its length, so later columns stay where they were.
        for (o, i) in out.iter().zip(src.lines()) {
            assert_eq!(o.chars().count(), i.chars().count(), "{i}");
        }
        assert_eq!(normalize_fixed(src).col_offsets, vec![0; 4]);
    }

    #[test]
    fn glued_goto_and_call_keywords_get_a_blank() {
        let src = "      GOTO44\n      GO TO44\n      IF(X.GT.0)GOTO44\n      CALLFOO(A)\n      IF (X .GT. 0) CALLFOO\n   10 GOTO 44\n      GOTO(10,20),K\n";
        assert_eq!(
            norm(src),
            vec![
                "      GOTO 44",
                "      GO TO 44",
                "      IF(X.GT.0)GOTO 44",
                "      CALL FOO(A)",
                "      IF (X .GT. 0) CALL FOO",
                "   10 GOTO 44",
                "      GOTO(10,20),K",
            ]
        );
        // What could be something else is kept: assignments to variables named GOTO44X
        // or CALLX, an assigned GOTO, a string.
        let kept = "      GOTOX = 1\n      GOTO44X = 2\n      CALLX(I) = 3\n      GOTOK\n      IF(C.EQ.'A')GOTOK\n      CALLX = 4\n      PRINT *, 'GOTO44'\n      IF (A) = 1\n";
        assert_eq!(norm(kept), kept.lines().collect::<Vec<_>>());
    }

    #[test]
    fn dotted_lookalikes_and_character_contexts_are_kept() {
        let src = "      S = '. EQ .' // \". and .\"\n  100 FORMAT(6H. EQ .)\n      X = 1 . 5 + 2. E 1\n      L = A . FOO . B ! . eq .\n      DATA R/1., 2./\n";
        let out = norm(src);
        let want: Vec<String> = src.lines().map(str::to_string).collect();
        assert_eq!(out, want);
    }

    #[test]
    fn dotted_operator_in_a_continued_string_is_kept() {
        let out = norm("      S = 'AB\n     &. EQ .'\n      L = X .  EQ. Y\n");
        assert_eq!(out[1], "     &. EQ .'");
        assert_eq!(out[2], "      L = X .EQ.   Y");
    }

    #[test]
    fn class_variable_is_renamed_in_place() {
        let src = "      CHARACTER*1 CLASS, CLASSX\n      class = 'U'\n      IF (CLASS.EQ.'S') PRINT *, 'class', Class\n     &  , 5HCLASS\n";
        let n = normalize_fixed(src);
        let out: Vec<&str> = n.text.lines().collect();
        assert_eq!(
            out,
            vec![
                "      CHARACTER*1 cls_0, CLASSX",
                "      cls_0 = 'U'",
                "      IF (cls_0.EQ.'S') PRINT *, 'class', cls_0 &",
                "     &  , 5HCLASS",
            ]
        );
        assert_eq!(n.col_offsets, vec![0; 4]);
        // A stand-in the file already uses is skipped.
        let out = norm("      CLS_0 = 1\n      CLASS = 2\n");
        assert_eq!(out, vec!["      CLS_0 = 1", "      cls_1 = 2"]);
        // An array, a statement after `;`, and a variable ENUM.
        let out = norm("      CLASS(2) = 1; CLASS(1) = ENUM\n      Enum=2\n");
        assert_eq!(
            out,
            vec!["      cls_0(2) = 1; cls_0(1) = en_0", "      en_0=2"]
        );
    }

    #[test]
    fn class_as_a_global_name_is_kept() {
        for src in [
            "      CLASS = 1\n      CALL CLASS(X)\n",
            "      SUBROUTINE CLASS\n      CLASS = 1\n",
            "      REAL FUNCTION CLASS(X)\n",
            "      COMMON /CLASS/ A\n      CLASS = 1\n",
            "      EXTERNAL F, CLASS\n",
            "      NAMELIST /G/ X, CLASS\n      CLASS = 1\n",
            "      CLASS = 1\n      CLASS(T), INTENT(IN) :: X\n",
            "      CLASS(T) X\n      Y = CLASS\n",
            "      SELECT TYPE (X)\n      CLASS IS (T)\n      CLASS DEFAULT\n",
            "      ENUM, BIND(C)\n      END ENUM\n      ENUM = 1\n",
        ] {
            let want: Vec<String> = src.lines().map(str::to_string).collect();
            assert_eq!(norm(src), want, "{src}");
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics_and_keeps_line_count(s in "[ -~\t\n\r]{0,400}") {
            let n = normalize_fixed(&s);
            proptest::prop_assert_eq!(n.text.lines().count(), s.lines().count());
            proptest::prop_assert_eq!(n.col_offsets.len(), s.lines().count());
        }

        #[test]
        fn never_panics_on_fortranish_lines(
            lines in proptest::collection::vec("(C|\\*|!|D| |\t|[0-9]){0,3}[ 0-9&\t]{0,6}[ -~]{0,90}", 0..20)
        ) {
            let s = lines.join("\n");
            let n = normalize_fixed(&s);
            proptest::prop_assert_eq!(n.text.lines().count(), s.lines().count());
        }

        #[test]
        fn never_panics_on_unicode(s in "(\\PC|\n|\r|\t){0,200}") {
            let n = normalize_fixed(&s);
            proptest::prop_assert_eq!(n.text.lines().count(), s.lines().count());
        }
    }
}
