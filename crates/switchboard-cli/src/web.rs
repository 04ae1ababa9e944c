//! `switchboard web`: the engine serves the window to browsers the user
//! pairs (`web pair`), lists them (`web devices`) and unpairs them
//! (`web revoke`).

use std::io::Write;

use anyhow::Result;
use clap::{Args, Subcommand};
use switchboard_api::{Device, PairingCode, WebSettings, WebStatus};
use switchboard_client::blocking::Client;

use crate::Output;
use crate::print::{columns, one_line, print};

#[derive(Args, Debug)]
pub struct WebArgs {
    #[command(subcommand)]
    pub command: Option<WebCommand>,
    /// Stop serving browsers (every one connected is let go).
    #[arg(long, conflicts_with_all = ["listen", "allow_name", "status", "tls_cert"])]
    pub off: bool,
    /// Only say whether and where it serves.
    #[arg(long, conflicts_with_all = ["listen", "allow_name", "tls_cert"])]
    pub status: bool,
    /// Listen on this address and port instead of 127.0.0.1 on the port kept
    /// (any address but loopback is served over HTTPS only, with a
    /// certificate the engine makes and keeps unless you give one).
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: Option<String>,
    /// Serve over HTTPS with this certificate (PEM, its chain), e.g. from
    /// `tailscale cert`; with --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The certificate's private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
    /// Forget the certificate given: serve HTTPS with the one the engine
    /// makes and keeps.
    #[arg(long, conflicts_with_all = ["tls_cert", "off", "status"])]
    pub engine_cert: bool,
    /// A name browsers reach it by besides localhost (a tailnet name for
    /// `tailscale serve`, say); repeat for more.
    #[arg(long, value_name = "NAME")]
    pub allow_name: Vec<String>,
    #[command(flatten)]
    pub output: Output,
}

#[derive(Subcommand, Debug)]
pub enum WebCommand {
    /// A one-time code that pairs a browser: open the address it prints (or
    /// scan the QR code) in that browser within 5 minutes.
    Pair {
        /// The browser may look but change nothing.
        #[arg(long)]
        read_only: bool,
        /// Name the device (else it is named after its browser).
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        output: Output,
    },
    /// The browsers paired, most recently seen first.
    Devices {
        #[command(flatten)]
        output: Output,
    },
    /// Unpairs a browser (by its name or id): its open pages close at once.
    Revoke {
        device: String,
        #[command(flatten)]
        output: Output,
    },
}

/// `elsewhere`: the engine runs on another machine (`--host`), where a
/// path given must name the file whole.
pub(crate) fn run(client: &Client, args: WebArgs, elsewhere: bool, out: &mut impl Write) -> Result<()> {
    match args.command {
        Some(WebCommand::Pair { read_only, name, output }) => {
            let code = client.pair_device(read_only, name)?;
            print(out, output, &code, pairing_words)
        }
        Some(WebCommand::Devices { output }) => {
            let devices = client.list_devices()?;
            print(out, output, &devices, |devices| devices_words(devices))
        }
        Some(WebCommand::Revoke { device, output }) => {
            client.revoke_device(device.clone())?;
            print(out, output, &(), |()| format!("{} is unpaired; its open pages closed", one_line(&device)))
        }
        None => {
            let status = if args.status {
                client.web_status()?
            } else {
                let kept = client.web_status()?.settings;
                // The engine may run elsewhere than this shell's folder: paths go whole (on
                // another machine, as given: this machine's folder names nothing there).
                let whole = |path: std::path::PathBuf| -> Result<String> {
                    if elsewhere && path.is_relative() {
                        let shown = path.display();
                        return Err(crate::Refused(format!(
                            "{shown} is a path in this machine's folder; give the file's whole path on the other machine"
                        ))
                        .into());
                    }
                    Ok(std::path::absolute(&path)?.to_string_lossy().into_owned())
                };
                let (tls_cert, tls_key) = match (args.tls_cert, args.tls_key, args.engine_cert) {
                    (_, _, true) => (None, None),
                    (Some(cert), Some(key), false) => (Some(whole(cert)?), Some(whole(key)?)),
                    _ => (kept.tls_cert, kept.tls_key),
                };
                let settings = WebSettings {
                    serving: !args.off,
                    listen: args.listen.or(kept.listen),
                    names: if args.allow_name.is_empty() { kept.names } else { args.allow_name },
                    tls_cert,
                    tls_key,
                };
                client.set_web(settings)?
            };
            print(out, args.output, &status, status_words)?;
            match (&status.problem, status.settings.serving) {
                (Some(problem), true) => Err(crate::Refused(format!("not serving browsers: {problem}")).into()),
                _ => Ok(()),
            }
        }
    }
}

fn status_words(status: &WebStatus) -> String {
    let certificate = status
        .fingerprint
        .as_ref()
        .map_or(String::new(), |fingerprint| format!("\nits certificate's SHA-256 fingerprint: {fingerprint}"));
    match (&status.url, &status.problem, status.settings.serving) {
        (Some(url), _, _) => format!(
            "serving browsers at {url}{certificate}\npair one with `switchboard web pair` (or Devices in the window); stop with `switchboard web --off`"
        ),
        (None, Some(_), true) => String::new(),
        _ => "not serving browsers (start with `switchboard web`)".to_owned(),
    }
}

fn pairing_words(code: &PairingCode) -> String {
    let access = if code.read_only { "to look only" } else { "with full access" };
    let certificate = code.fingerprint.as_ref().map_or(String::new(), |fingerprint| {
        format!("\nthe browser may ask about the certificate: its SHA-256 fingerprint is {fingerprint}")
    });
    format!(
        "{}\nOpen this in the browser to pair ({access}), or scan the code; it pairs once, within 5 minutes:\n{}\ncode: {}{certificate}",
        qr_blocks(&code.qr),
        code.url,
        code.code
    )
}

fn devices_words(devices: &[Device]) -> String {
    if devices.is_empty() {
        return "no browser is paired (pair one with `switchboard web pair`)".to_owned();
    }
    columns(devices.iter().map(|device| {
        vec![
            one_line(&device.name),
            if device.read_only { "look only" } else { "full access" }.to_owned(),
            if device.connected { "connected".to_owned() } else { format!("last seen from {}", device.last_from) },
            device.id.clone(),
        ]
    }))
}

/// A QR code in a terminal, two rows a line: light modules drawn, dark ones
/// left to the (dark) background, as phones read it off a dark terminal.
fn qr_blocks(rows: &[String]) -> String {
    let light = |row: Option<&String>, column: usize| row.is_none_or(|row| row.as_bytes().get(column) != Some(&b'#'));
    rows.chunks(2)
        .map(|pair| {
            let width = pair[0].len();
            (0..width)
                .map(|column| match (light(pair.first(), column), light(pair.get(1), column)) {
                    (true, true) => '█',
                    (true, false) => '▀',
                    (false, true) => '▄',
                    (false, false) => ' ',
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_qr_code_is_drawn_two_rows_a_line_light_modules_as_blocks() {
        let rows = ["  ".to_owned(), " #".to_owned(), "# ".to_owned()];
        assert_eq!(qr_blocks(&rows), "█▀\n▄█");
    }
}
