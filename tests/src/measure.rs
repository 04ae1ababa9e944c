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
