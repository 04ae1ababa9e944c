//! What the benches share: percentiles and milliseconds of latencies.

use std::time::Duration;

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
