//! What the benches share: percentiles and milliseconds of latencies, and
//! terminal output timed to its last byte at a client.

use std::time::{Duration, Instant};

/// The p50 and p99 of `samples` (nearest rank); it must not be empty.
pub fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    assert!(!samples.is_empty(), "no samples");
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 * q).ceil() as usize).clamp(1, samples.len()) - 1];
    (at(0.50), at(0.99))
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Agent-like terminal output of at least `bytes`: numbered lines in turning
/// colours, as the throughput benchmarks print through a PTY.
pub fn coloured_lines(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 200);
    let mut n = 0u64;
    while text.len() < bytes {
        text.push_str(&format!("\x1b[3{}mline {n:08} {}\x1b[0m\n", n % 7, "-".repeat(60)));
        n += 1;
    }
    text
}

/// The line that ends [`coloured_lines`] output in the output benchmarks.
pub const END: &str = "END-OF-OUTPUT";

/// The median of `times`; it must not be empty.
pub fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Whether [`END`] is in what was received last (it may straddle two
/// batches): `tail` keeps the end of what came before.
pub fn ends(tail: &mut Vec<u8>, batch: &[u8]) -> bool {
    tail.extend_from_slice(batch);
    let keep = tail.len().saturating_sub(64);
    tail.drain(..keep);
    tail.windows(END.len()).any(|w| w == END.as_bytes())
}

/// From a new session of `profile` (an agent that prints output ending in
/// [`END`]) to its last byte received by `client`.
pub async fn output_to_client(
    engine: &switchboard_core::EngineHandle,
    client: &switchboard_client::Client,
    profile: &switchboard_core::ProfileId,
) -> Duration {
    let started = Instant::now();
    let session = engine.start_session(profile.clone(), switchboard_core::TermSize::DEFAULT).await.unwrap();
    let mut terminal = client.attach(session.id).await.unwrap();
    let mut tail = Vec::new();
    loop {
        let batch = terminal.next().await.expect("the stream goes on until the end of the output");
        if ends(&mut tail, &batch) {
            break;
        }
    }
    let elapsed = started.elapsed();
    client.detach(terminal.stream).await.ok();
    elapsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let samples: Vec<Duration> = (1..=100).rev().map(Duration::from_millis).collect();
        assert_eq!(percentiles(samples), (Duration::from_millis(50), Duration::from_millis(99)));
        assert_eq!(percentiles(vec![Duration::from_millis(7)]), (Duration::from_millis(7), Duration::from_millis(7)));
    }
}
