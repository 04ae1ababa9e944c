//! HTTPS for the web server: the certificate the user gives (`tailscale
//! cert`, say), or one the engine makes and keeps in the data directory for
//! an address other than loopback. Its SHA-256 fingerprint is shown at
//! pairing, so the user can tell it is theirs when the browser asks.

use std::path::Path;
use std::sync::Arc;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use sha2::{Digest, Sha256};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;

/// The certificate served, ready to accept connections.
#[derive(Clone)]
pub struct Tls {
    pub acceptor: TlsAcceptor,
    /// `AB:CD:…`, as browsers show a certificate's SHA-256 fingerprint.
    pub fingerprint: String,
}

/// The files of the certificate the engine makes, in its folder.
const MADE_CERT: &str = "cert.pem";
const MADE_KEY: &str = "key.pem";
/// The names the made certificate is for, one a line: made again when a
/// name is wanted that it does not cover.
const MADE_NAMES: &str = "names";

/// The user's certificate (its chain, first the server's own) and key.
pub fn load(cert: &Path, key: &Path) -> Result<Tls, String> {
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|error| format!("the certificate {} cannot be read: {error}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!("{} holds no certificate", cert.display()));
    }
    let key = PrivateKeyDer::from_pem_file(key)
        .map_err(|error| format!("the key {} cannot be read: {error}", key.display()))?;
    ready(chain, key)
}

/// The certificate made and kept in `folder` for `names` (made now if there
/// is none, or it does not cover them all).
pub fn made(folder: &Path, names: &[String]) -> Result<Tls, String> {
    let (cert, key, kept) = (folder.join(MADE_CERT), folder.join(MADE_KEY), folder.join(MADE_NAMES));
    let covered: Vec<String> = std::fs::read_to_string(&kept).unwrap_or_default().lines().map(str::to_owned).collect();
    let covers = names.iter().all(|name| covered.contains(name));
    if !(covers && cert.is_file() && key.is_file()) {
        let mut wanted: Vec<String> = covered.into_iter().chain(names.iter().cloned()).collect();
        wanted.sort();
        wanted.dedup();
        make(folder, &wanted)?;
    }
    load(&cert, &key)
}

/// Makes a self-signed certificate for `names` (addresses and host names)
/// and keeps it, private, in `folder`.
fn make(folder: &Path, names: &[String]) -> Result<(), String> {
    let failed = |error: &dyn std::fmt::Display| format!("a certificate could not be made: {error}");
    let made = rcgen::generate_simple_self_signed(names.to_vec()).map_err(|e| failed(&e))?;
    crate::private::create_dir(folder).map_err(|e| failed(&e))?;
    crate::private::write(&folder.join(MADE_KEY), made.signing_key.serialize_pem().as_bytes())
        .map_err(|e| failed(&e))?;
    crate::private::write(&folder.join(MADE_CERT), made.cert.pem().as_bytes()).map_err(|e| failed(&e))?;
    crate::private::write(&folder.join(MADE_NAMES), names.join("\n").as_bytes()).map_err(|e| failed(&e))?;
    tracing::info!(?names, "made a certificate for serving browsers");
    Ok(())
}

fn ready(chain: Vec<CertificateDer<'static>>, key: PrivateKeyDer<'static>) -> Result<Tls, String> {
    let fingerprint = fingerprint(&chain[0]);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| error.to_string())?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|error| format!("the certificate and key do not go together: {error}"))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Tls { acceptor: TlsAcceptor::from(Arc::new(config)), fingerprint })
}

/// A certificate's SHA-256 fingerprint as browsers show it.
pub fn fingerprint(cert: &[u8]) -> String {
    Sha256::digest(cert).iter().map(|byte| format!("{byte:02X}")).collect::<Vec<_>>().join(":")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_made_certificate_is_kept_and_made_again_only_for_a_name_it_does_not_cover() {
        let folder = tempfile::tempdir().unwrap();
        let first = made(folder.path(), &["100.64.0.2".to_owned()]).unwrap();
        assert_eq!(first.fingerprint.len(), 32 * 3 - 1);
        let again = made(folder.path(), &["100.64.0.2".to_owned()]).unwrap();
        assert_eq!(again.fingerprint, first.fingerprint, "kept, so a browser that trusted it still does");
        let wider = made(folder.path(), &["box.tail.ts.net".to_owned()]).unwrap();
        assert_ne!(wider.fingerprint, first.fingerprint);
        let names = std::fs::read_to_string(folder.path().join(MADE_NAMES)).unwrap();
        assert_eq!(names, "100.64.0.2\nbox.tail.ts.net", "the old names are still covered");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(folder.path().join(MADE_KEY)).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the key is the user's alone");
    }

    #[test]
    fn a_certificate_given_is_refused_in_words_when_it_cannot_serve() {
        let folder = tempfile::tempdir().unwrap();
        let (cert, key) = (folder.path().join("c.pem"), folder.path().join("k.pem"));
        let missing = load(&cert, &key).err().unwrap();
        assert!(missing.contains("cannot be read"), "{missing}");
        std::fs::write(&cert, "not a certificate").unwrap();
        std::fs::write(&key, "not a key").unwrap();
        let garbage = load(&cert, &key).err().unwrap();
        assert!(garbage.contains("no certificate"), "{garbage}");
        let one = rcgen::generate_simple_self_signed(vec!["a.example".to_owned()]).unwrap();
        let other = rcgen::generate_simple_self_signed(vec!["b.example".to_owned()]).unwrap();
        std::fs::write(&cert, one.cert.pem()).unwrap();
        std::fs::write(&key, other.signing_key.serialize_pem()).unwrap();
        let mismatched = load(&cert, &key).err().unwrap();
        assert!(mismatched.contains("do not go together"), "{mismatched}");
        std::fs::write(&key, one.signing_key.serialize_pem()).unwrap();
        assert_eq!(load(&cert, &key).unwrap().fingerprint, fingerprint(one.cert.der()));
    }
}
