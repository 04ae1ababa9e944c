//! Where a client's notices start: what an engine holds now, read through the client.

use crate::notice::Notices;
use crate::{Client, ClientError};

/// Why the notices' starting point could not be read.
#[derive(Debug, thiserror::Error)]
pub enum NoticesUnread {
    #[error("{0}")]
    Engine(#[from] ClientError),
    #[error("The machine's answer could not be kept: {0}.")]
    Host(#[from] serde_json::Error),
}

/// The notices' starting point: what the engine has now; another machine's
/// (`from_host`) kept as the window keeps what it says
/// (`fleet::capped_from_host`), so a notification never shows more of it.
pub async fn notices_of(client: &Client, from_host: bool) -> Result<Notices, NoticesUnread> {
    fn kept<T: serde::Serialize + serde::de::DeserializeOwned>(
        listed: Result<T, ClientError>,
        from_host: bool,
    ) -> Result<T, NoticesUnread> {
        let listed = listed?;
        if !from_host {
            return Ok(listed);
        }
        Ok(crate::fleet::capped_from_host(listed)?)
    }
    let mut notices = Notices::new(
        &kept(client.list_profiles().await, from_host)?,
        &kept(client.list_queues().await, from_host)?,
        &kept(client.list_signals().await, from_host)?,
        &kept(client.list_loops().await, from_host)?,
        &kept(client.list_attention().await, from_host)?,
    );
    notices.already_told(
        &kept(client.list_limits().await, from_host)?,
        &kept(client.list_tasks(None).await, from_host)?,
        &kept(client.list_worktrees().await, from_host)?,
    );
    notices.set_settings(client.get_settings().await?);
    Ok(notices)
}
