//! File names as git gives them (bytes): kept exactly, shown safely.

/// Where a byte of a file name that is not UTF-8 is kept in the name as
/// text: the private-use character at this base plus the byte, so a name
/// stays exact until it is shown ([`shown_name`]).
pub(super) const RAW_BYTE_BASE: u32 = 0x10_FF00;

/// A file name as git gives it (bytes), as text that keeps every byte.
pub fn decode_name(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let raw = |out: &mut String, byte: u8| {
        out.push(char::from_u32(RAW_BYTE_BASE + u32::from(byte)).expect("a private-use character"));
    };
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if u32::from(c) >= RAW_BYTE_BASE {
                // The name's own character of that range: kept as its bytes, so it reads back as itself.
                c.encode_utf8(&mut [0; 4]).bytes().for_each(|byte| raw(&mut out, byte));
            } else {
                out.push(c);
            }
        }
        chunk.invalid().iter().for_each(|byte| raw(&mut out, *byte));
    }
    out
}

/// The bytes of a name [`decode_name`] made.
pub(super) fn name_bytes(name: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len());
    for c in name.chars() {
        match u32::from(c).checked_sub(RAW_BYTE_BASE) {
            Some(byte) if byte <= 0xff => out.push(byte as u8),
            _ => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out
}

/// Whether a character of a name cannot be shown as it is: a control (a
/// line break would pose as the next line of a list), one that turns the
/// text's direction (it would show the name reversed), or one that stands
/// for a byte that is not UTF-8.
pub(super) fn unshowable(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        || u32::from(c) >= RAW_BYTE_BASE
}

/// A file name as the engine shows and sends it, the one way everywhere
/// (the window, the command line, `--json`): as it is, unless it holds a
/// character that cannot be shown as it is (`unshowable`: a control, a
/// direction control, a byte that is not UTF-8) or starts with `"`; then in
/// git's quoted form: between double quotes, `\"`, `\\`, `\n`, `\t`, `\r`, and every other
/// control byte or byte past ASCII as `\` and three octal digits. Nothing
/// is lost: a name that starts with `"` is always quoted, and the quoted
/// form gives back its bytes.
pub fn shown_name(name: &str) -> String {
    if !name.starts_with('"') && !name.chars().any(unshowable) {
        return name.to_owned();
    }
    let mut out = String::from("\"");
    for byte in name_bytes(name) {
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            0x20..=0x7e => out.push(byte as char),
            _ => out.push_str(&format!("\\{byte:03o}")),
        }
    }
    out.push('"');
    out
}
