//! At most so many requests in flight to one IP address, over all the host names that resolve
//! to it (issue "The crawler": "also limit per resolved IP address"). Many sites share one
//! server — virtual hosts on shared hosting, a CDN edge — and a crawler polite per host name
//! could still open one connection per host name to the same machine.
//!
//! A request resolves its host first (the resolver's cache makes that free after the first
//! time), takes a permit for the address it will connect to (the first the resolver returns,
//! the one reqwest's connector tries first), and holds it until its answer is read. Permits are
//! handed out first come, first served (tokio's fair semaphore). The wait happens before the
//! request's clock starts, so it is not counted against the request's timeouts.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Gates are forgotten, when idle, once there are more than this many.
const IDLE_GATES_KEPT: usize = 4096;

/// One semaphore per IP address, created on first use.
#[derive(Debug)]
pub(crate) struct IpGates {
    limit: usize,
    gates: Mutex<HashMap<IpAddr, Arc<Semaphore>>>,
}

impl IpGates {
    /// Gates letting `limit` (at least 1) requests through per address.
    pub(crate) fn new(limit: usize) -> Self {
        Self { limit: limit.max(1), gates: Mutex::new(HashMap::new()) }
    }

    /// Waits for a permit to `address`; the permit is released when dropped.
    pub(crate) async fn enter(&self, address: IpAddr) -> Option<OwnedSemaphorePermit> {
        let gate = {
            let mut gates = self.gates.lock().unwrap_or_else(PoisonError::into_inner);
            if gates.len() > IDLE_GATES_KEPT {
                let limit = self.limit;
                gates.retain(|_, gate| Arc::strong_count(gate) > 1 || gate.available_permits() < limit);
            }
            Arc::clone(gates.entry(address).or_insert_with(|| Arc::new(Semaphore::new(self.limit))))
        };
        // The semaphore is never closed, so this only fails if it were.
        gate.acquire_owned().await.ok()
    }

    /// How many addresses have a gate (for tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.gates.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn no_more_than_the_limit_enter_one_address_and_others_are_not_held_up() {
        let gates = Arc::new(IpGates::new(2));
        let local: IpAddr = "127.0.0.1".parse().unwrap();
        let other: IpAddr = "127.0.0.2".parse().unwrap();
        let first = gates.enter(local).await.unwrap();
        let _second = gates.enter(local).await.unwrap();
        let waiting = tokio::spawn({
            let gates = Arc::clone(&gates);
            async move { gates.enter(local).await.map(drop) }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "a third request entered a gate of two");
        // Another address has its own gate.
        let _elsewhere = tokio::time::timeout(Duration::from_secs(1), gates.enter(other)).await.unwrap();
        drop(first);
        tokio::time::timeout(Duration::from_secs(1), waiting).await.unwrap().unwrap().unwrap();
        assert_eq!(gates.len(), 2);
    }

    #[tokio::test]
    async fn idle_gates_are_forgotten_when_there_are_many() {
        let gates = IpGates::new(1);
        for index in 0..=(IDLE_GATES_KEPT as u32 + 1) {
            drop(gates.enter(IpAddr::from(index.to_be_bytes())).await);
        }
        assert!(gates.len() <= IDLE_GATES_KEPT + 1, "{} gates kept", gates.len());
    }
}
