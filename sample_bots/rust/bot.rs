// A stdio poker bot in Rust (docs/bots-stdio.md): checks when free, calls up to a third of the pot, else folds.
// Build: rustc -O -o sample_bots/rust/bot sample_bots/rust/bot.rs    Run: "stdio:sample_bots/rust/bot"
use std::io::{self, BufRead, Write};

/// The integer after "key": in a line the dealer wrote (compact JSON, one key of each name per line).
fn field(line: &str, key: &str) -> i64 {
    let quoted = format!("\"{}\":", key);
    line.find(&quoted)
        .map(|at| &line[at + quoted.len()..])
        .map(|rest| rest.split(|c: char| c != '-' && !c.is_ascii_digit()).next().unwrap_or(""))
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.expect("the dealer's output is UTF-8");
        if line.starts_with("{\"type\":\"goodbye\"") {
            break;
        }
        if !line.starts_with("{\"type\":\"request\"") {
            continue; // everything else is information
        }
        let (call, pot) = (field(&line, "call_amount"), field(&line, "pot"));
        let action = if call == 0 || 3 * call <= pot { "check_call" } else { "fold" };
        writeln!(out, "{{\"table\":{},\"request_id\":{},\"action\":\"{}\"}}",
                 field(&line, "table"), field(&line, "request_id"), action).unwrap();
        out.flush().unwrap();
    }
}
