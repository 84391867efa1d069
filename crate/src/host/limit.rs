//! The upload rate per client: a token bucket per IP address, in this instance's memory. This is not
//! the host's state (that is all in the store): a restart or another instance starts with full
//! buckets, which only makes the limit per instance. Buckets full again are dropped.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

/// At most this many clients are tracked; past it the full buckets are forgotten first.
const MAX_CLIENTS: usize = 65_536;

pub struct RateLimiter {
    burst: f64,
    per_second: f64,
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl RateLimiter {
    /// `burst` uploads at once, then `per_minute` a minute.
    pub fn new(burst: u32, per_minute: u32) -> Self {
        RateLimiter {
            burst: f64::from(burst.max(1)),
            per_second: f64::from(per_minute) / 60.0,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token for `ip`: `Ok(())`, or `Err(seconds)` to wait before the next one.
    pub fn take(&self, ip: IpAddr) -> Result<(), u64> {
        let now = Instant::now();
        let Ok(mut b) = self.buckets.lock() else {
            return Ok(());
        };
        if b.len() >= MAX_CLIENTS {
            let (burst, rate) = (self.burst, self.per_second);
            b.retain(|_, (tokens, at)| *tokens + now.duration_since(*at).as_secs_f64() * rate < burst);
        }
        let (tokens, at) = b.entry(ip).or_insert((self.burst, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * self.per_second).min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else if self.per_second > 0.0 {
            Err(((1.0 - *tokens) / self.per_second).ceil() as u64)
        } else {
            Err(60)
        }
    }
}
