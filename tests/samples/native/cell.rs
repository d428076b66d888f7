//! A write-once cell and a small event bus built on it.

use std::cell::UnsafeCell;
use std::fmt;

/// Something that wants to hear about events.
pub trait Listener: Send {
    /// Called once per published event, in subscription order.
    fn notify(&self, event: &str) -> bool;

    /// A name for log lines.
    fn label(&self) -> String {
        String::from("listener")
    }
}

/// How many listeners a bus accepts before it refuses more.
pub type Capacity = usize;

/// A cell that is written once and read many times.
pub struct OnceCell<T> {
    inner: UnsafeCell<Option<T>>,
}

impl<T> OnceCell<T> {
    /// An empty cell.
    pub const fn new() -> Self {
        OnceCell { inner: UnsafeCell::new(None) }
    }

    /// The value, once it is set.
    pub fn get(&self) -> Option<&T> {
        unsafe { (*self.inner.get()).as_ref() }
    }

    /// Stores the value unless the cell already holds one.
    #[inline]
    pub fn set(&self, value: T) -> Result<(), T> {
        if self.get().is_some() {
            return Err(value);
        }
        unsafe { *self.inner.get() = Some(value) };
        Ok(())
    }
}

/// The raw bits of a message id, read as a number or as bytes.
#[repr(C)]
pub union RawId {
    pub number: u64,
    pub bytes: [u8; 8],
}

/// Delivers each event to every subscribed listener.
pub struct Bus<L: Listener> {
    listeners: Vec<L>,
    limit: Capacity,
}

impl<L: Listener> Bus<L> {
    /// A bus that takes at most `limit` listeners.
    pub fn with_limit(limit: Capacity) -> Self {
        Bus { listeners: Vec::new(), limit }
    }

    /// Adds a listener; false when the bus is full.
    pub fn subscribe(&mut self, listener: L) -> bool {
        if self.listeners.len() >= self.limit {
            return false;
        }
        self.listeners.push(listener);
        true
    }

    /// Tells every listener; returns how many accepted the event.
    pub fn publish(&self, event: &str) -> usize {
        let event = NORMALIZE(event);
        self.listeners.iter().filter(|l| l.notify(&event)).count()
    }
}

impl<L: Listener> fmt::Display for crate::Bus<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bus with {} of {} listeners", self.listeners.len(), self.limit)
    }
}

/// Trims and lower-cases an event name before delivery.
pub const NORMALIZE: fn(&str) -> String = |event| event.trim().to_lowercase();

/// Builds a bus holding the given listeners.
macro_rules! bus {
    ($($listener:expr),* $(,)?) => {{
        let mut bus = Bus::with_limit(16);
        $(bus.subscribe($listener);)*
        bus
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;

    impl Listener for Echo {
        fn notify(&self, event: &str) -> bool {
            !event.is_empty()
        }
    }

    #[test]
    fn publishes_to_every_listener() {
        let bus = bus![Echo, Echo];
        assert_eq!(bus.publish(" Ping "), 2);
    }
}
