//! Pairing a browser: the one-time codes, the credential a paired browser
//! keeps in its cookie, and how wrong codes slow every caller down. Pure
//! but for the system's randomness ([`random`]).

use std::time::Duration;

use sha2::{Digest, Sha256};

/// The symbols of a code: Crockford's base 32 (no I, L, O or U), so a code
/// read aloud or typed from a phone's screen is not mistaken.
const CODE_ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// Symbols in a code: 50 bits. With every caller's wrong codes counted
/// together and the codes voided after [`VOID_AFTER`] of them, a guesser has
/// at most that many tries at 2^50.
pub const CODE_LENGTH: usize = 10;

/// How long a code pairs.
pub const CODE_LIFETIME: Duration = Duration::from_secs(5 * 60);

/// Wrong codes within [`FAILURE_WINDOW`] after which every code given is
/// void (the user makes a new one).
pub const VOID_AFTER: usize = 20;

/// How long a wrong code counts.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);

/// Wrong codes answered at once; past them each answer waits, doubling.
const FREE_FAILURES: usize = 3;

pub use crate::config::PairingSlowing as Slowing;

/// The cookie a paired browser keeps. `__Host-`: the browser sends it only
/// to this origin, over a secure one (loopback counts), for every path.
pub const COOKIE: &str = "__Host-switchboard";

/// Bytes of a device's secret.
const SECRET_BYTES: usize = 32;

/// `N` bytes of the system's randomness.
pub fn random<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("the system's randomness is readable");
    bytes
}

/// A code made of these random bytes (each byte gives one symbol: 256 is a
/// multiple of 32, so every symbol is as likely).
pub fn code_of(bytes: [u8; CODE_LENGTH]) -> String {
    bytes.iter().map(|byte| char::from(CODE_ALPHABET[usize::from(byte % 32)])).collect()
}

/// A code as typed, as it was given: case, spaces and dashes do not matter,
/// nor O for 0 or I and L for 1.
pub fn normalize_code(typed: &str) -> String {
    typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| match c.to_ascii_uppercase() {
            'O' => '0',
            'I' | 'L' => '1',
            other => other,
        })
        .collect()
}

/// A code shown to a person: in two groups of five.
pub fn spaced(code: &str) -> String {
    if code.len() == CODE_LENGTH && code.is_ascii() {
        format!("{}-{}", &code[..CODE_LENGTH / 2], &code[CODE_LENGTH / 2..])
    } else {
        code.to_owned()
    }
}

/// A new device secret, as the cookie carries it (hex).
pub fn new_secret() -> String {
    hex(&random::<SECRET_BYTES>())
}

/// What the store keeps of a secret.
pub fn hash_secret(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

/// Whether two hashes are the same, in a time that does not tell where they
/// differ.
pub fn same_hash(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |differ, (x, y)| differ | (x ^ y)) == 0
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A device's id as the store and the command line write it.
pub fn device_label(id: u64) -> String {
    format!("{id:016x}")
}

/// The id written by [`device_label`].
pub fn parse_device_label(label: &str) -> Option<u64> {
    (label.len() == 16).then(|| u64::from_str_radix(label, 16).ok()).flatten()
}

/// The cookie's value for a device: its id and its secret.
pub fn credential(device: u64, secret: &str) -> String {
    format!("{}.{secret}", device_label(device))
}

/// The device and secret of a `Cookie` header's credential, if it has one
/// well formed.
pub fn credential_in(cookies: &str) -> Option<(u64, String)> {
    let value = cookies.split(';').find_map(|pair| pair.trim().strip_prefix(COOKIE)?.strip_prefix('='))?;
    let (device, secret) = value.split_once('.')?;
    let well_formed = secret.len() == SECRET_BYTES * 2 && secret.bytes().all(|b| b.is_ascii_hexdigit());
    Some((parse_device_label(device)?, secret.to_owned())).filter(|_| well_formed)
}

/// The `Set-Cookie` header that gives a browser its credential: never read
/// by the page's scripts, sent only to this origin, over a secure one, and
/// never with a request another site starts.
pub fn set_cookie(device: u64, secret: &str) -> String {
    format!(
        "{COOKIE}={}; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age={}",
        credential(device, secret),
        400 * 24 * 60 * 60
    )
}

/// What a code attempt meets, from the wrong codes counted before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt {
    /// Judged after this wait (zero: at once).
    JudgedAfter(Duration),
    /// Too many wrong codes: none is judged until they age out.
    Refused,
}

/// How a code attempt is met after `failures` wrong codes within
/// [`FAILURE_WINDOW`], whoever made them.
pub fn attempt(failures: usize, slowing: Slowing) -> Attempt {
    if failures >= VOID_AFTER {
        return Attempt::Refused;
    }
    let Some(past_free) = failures.checked_sub(FREE_FAILURES) else {
        return Attempt::JudgedAfter(Duration::ZERO);
    };
    let doubled = slowing.first.saturating_mul(1u32 << past_free.min(16));
    Attempt::JudgedAfter(doubled.min(slowing.longest))
}

/// A device's name from its browser's `User-Agent`: "Chrome on Android".
pub fn device_name(user_agent: &str) -> String {
    let browser = [
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("FxiOS", "Firefox"),
        ("CriOS", "Chrome"),
        ("Chromium/", "Chromium"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    ]
    .iter()
    .find(|(mark, _)| user_agent.contains(mark))
    .map(|(_, name)| *name);
    let system = [
        ("Android", "Android"),
        ("iPhone", "iPhone"),
        ("iPad", "iPad"),
        ("CrOS", "ChromeOS"),
        ("Mac OS X", "macOS"),
        ("Windows", "Windows"),
        ("Linux", "Linux"),
    ]
    .iter()
    .find(|(mark, _)| user_agent.contains(mark))
    .map(|(_, name)| *name);
    match (browser, system) {
        (Some(browser), Some(system)) => format!("{browser} on {system}"),
        (Some(only), None) | (None, Some(only)) => only.to_owned(),
        (None, None) => "A browser".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_ten_unmistakable_symbols_read_back_however_it_is_typed() {
        let code = code_of([0, 31, 32, 255, 10, 18, 21, 24, 27, 100]);
        assert_eq!(code, "0Z0ZAJNRV4");
        for typed in ["0z0za-jnrv4", " 0Z0ZA JNRV4 ", "OZOZAJNRV4"] {
            assert_eq!(normalize_code(typed), code, "{typed}");
        }
        assert_eq!(normalize_code("il"), "11");
        assert_eq!(spaced(&code), "0Z0ZA-JNRV4");
        assert!(!code.contains(['I', 'L', 'O', 'U']));
    }

    #[test]
    fn a_credential_is_read_only_from_its_own_cookie_and_only_well_formed() {
        let secret = "ab".repeat(32);
        let set = set_cookie(0x1f, &secret);
        assert!(set.contains("HttpOnly") && set.contains("Secure") && set.contains("SameSite=Strict"));
        let value = credential(0x1f, &secret);
        let cases = [
            (format!("{COOKIE}={value}"), Some((0x1f, secret.clone()))),
            (format!("theme=dark; {COOKIE}={value}; other=1"), Some((0x1f, secret.clone()))),
            (format!("switchboard={value}"), None),
            (format!("{COOKIE}=1f.{secret}"), None),
            (format!("{COOKIE}={}.{}", device_label(0x1f), &secret[1..]), None),
            (format!("{COOKIE}={}.{}", device_label(0x1f), "zz".repeat(32)), None),
            (format!("{COOKIE}="), None),
            (String::new(), None),
        ];
        for (header, expected) in cases {
            assert_eq!(credential_in(&header), expected, "{header}");
        }
    }

    #[test]
    fn what_is_stored_is_a_hash_compared_whole() {
        let secret = new_secret();
        assert_eq!(secret.len(), 64);
        assert_ne!(secret, new_secret());
        let hash = hash_secret(&secret);
        assert_ne!(hash, secret);
        assert!(same_hash(&hash, &hash_secret(&secret)));
        assert!(!same_hash(&hash, &hash_secret(&new_secret())));
        assert!(!same_hash(&hash, &hash[..10]));
    }

    #[test]
    fn wrong_codes_slow_every_attempt_and_then_stop_them() {
        let cases = [
            (0, Attempt::JudgedAfter(Duration::ZERO)),
            (2, Attempt::JudgedAfter(Duration::ZERO)),
            (3, Attempt::JudgedAfter(Duration::from_millis(250))),
            (4, Attempt::JudgedAfter(Duration::from_millis(500))),
            (6, Attempt::JudgedAfter(Duration::from_secs(2))),
            (7, Attempt::JudgedAfter(Duration::from_secs(4))),
            (19, Attempt::JudgedAfter(Duration::from_secs(4))),
            (20, Attempt::Refused),
            (1000, Attempt::Refused),
        ];
        for (failures, expected) in cases {
            assert_eq!(attempt(failures, Slowing::default()), expected, "after {failures}");
        }
    }

    #[test]
    fn a_device_is_named_after_its_browser_and_system() {
        let cases = [
            (
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0 Mobile Safari/537.36",
                "Chrome on Android",
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1",
                "Safari on iPhone",
            ),
            ("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox on Linux"),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0 Safari/537.36 Edg/129.0",
                "Edge on Windows",
            ),
            ("curl/8.5.0", "A browser"),
            ("", "A browser"),
        ];
        for (agent, name) in cases {
            assert_eq!(device_name(agent), name, "{agent}");
        }
    }
}
