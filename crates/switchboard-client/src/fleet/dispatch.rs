//! Carrying out where [`route`](super::route()) sends a command, over any set
//! of engines: a window's links, or the engine serving a browser with the
//! other machines it reaches for it. A list is asked of every engine
//! connected and the answers joined; a command naming something goes to
//! the engine known to hold it (refused, with the reason, while that one
//! cannot be reached: never sent elsewhere), else to each in turn.

use std::sync::{Arc, Mutex};

use switchboard_api::{ApiError, Command, ErrorCode, Reply};

use super::{Owners, Route, join, not_held, route};

/// One engine a command may go to.
pub trait Reach: Send + Sync + 'static {
    /// The other machine it is (none: the client's own engine).
    fn destination(&self) -> Option<&str>;
    /// Whether it is connected now (never waits).
    fn is_connected(&self) -> bool;
    /// Sends a command; what the engine answers is taught to the owners.
    fn call(&self, command: Command) -> impl Future<Output = Result<Reply, ApiError>> + Send;
}

/// A command refused before it was sent, in the user's words.
pub fn refused(message: String) -> ApiError {
    ApiError { code: ErrorCode::InvalidInput, message, field: None, problems: Vec::new() }
}

/// Sends `command` to the machine `host` names (none: where its route
/// sends it) among `main` and the machines `beside` it.
pub async fn call<R: Reach>(
    main: &R,
    beside: &[Arc<R>],
    owners: &Mutex<Owners>,
    command: Command,
    host: Option<String>,
) -> Result<Reply, ApiError> {
    if let Some(host) = host
        && main.destination() != Some(host.as_str())
    {
        let engine = beside
            .iter()
            .find(|engine| engine.destination() == Some(host.as_str()))
            .ok_or_else(|| refused(format!("“{host}” is not one of the machines shown here.")))?;
        return engine.call(command).await;
    }
    match route(&command) {
        Route::Every => every(main, beside, command).await,
        Route::Owner(ids) => {
            let mut refusal = None;
            for engine in holders(main, beside, owners, &ids)? {
                let answered = match &engine {
                    Some(engine) => engine.call(command.clone()).await,
                    None => main.call(command.clone()).await,
                };
                match answered {
                    Err(error) if not_held(error.code) => refusal = Some(error),
                    answered => return answered,
                }
            }
            Err(refusal.unwrap_or_else(|| refused("No machine shown here holds this.".into())))
        }
        Route::Chosen | Route::Local => main.call(command).await,
    }
}

/// Asks every engine connected and joins the answers; a machine that does
/// not answer is left out (it shows as its link).
async fn every<R: Reach>(main: &R, beside: &[Arc<R>], command: Command) -> Result<Reply, ApiError> {
    let others: Vec<_> = beside
        .iter()
        .filter(|engine| engine.is_connected())
        .map(|engine| {
            let (engine, command) = (engine.clone(), command.clone());
            tokio::spawn(async move {
                let reply = engine.call(command).await;
                (engine, reply)
            })
        })
        .collect();
    let mut replies = vec![main.call(command.clone()).await?];
    for other in others {
        match other.await {
            Ok((_, Ok(reply))) => replies.push(reply),
            Ok((engine, Err(error))) => tracing::warn!(
                host = ?engine.destination(), command = command.name(), message = %error.message,
                "another machine did not answer"
            ),
            Err(error) => tracing::warn!(%error, "asking another machine failed"),
        }
    }
    join(replies).ok_or_else(|| ApiError {
        code: ErrorCode::Internal,
        message: format!("The machines answered `{}` differently.", command.name()),
        field: None,
        problems: Vec::new(),
    })
}

/// The engines that may hold what `ids` name, in turn (none: `main`): the
/// machine known to hold it (refused when it cannot be reached), else the
/// client's own first, then each machine connected.
pub fn holders<R: Reach>(
    main: &R,
    beside: &[Arc<R>],
    owners: &Mutex<Owners>,
    ids: &[String],
) -> Result<Vec<Option<Arc<R>>>, ApiError> {
    let held = owners.lock().expect("never poisoned").owner(ids).map(str::to_owned);
    let in_turn = || {
        let connected = beside.iter().filter(|engine| engine.is_connected()).cloned().map(Some);
        std::iter::once(None).chain(connected).collect()
    };
    let Some(host) = held else { return Ok(in_turn()) };
    if main.destination() == Some(host.as_str()) {
        return Ok(vec![None]);
    }
    match beside.iter().find(|engine| engine.destination() == Some(host.as_str())) {
        Some(engine) if engine.is_connected() => Ok(vec![Some(engine.clone())]),
        Some(_) => Err(ApiError {
            code: ErrorCode::EngineStopped,
            message: format!("This is on {host}, which cannot be reached now; it is reconnected by itself."),
            field: None,
            problems: Vec::new(),
        }),
        None => Ok(in_turn()),
    }
}
