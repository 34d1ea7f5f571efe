//! What the quiz and review pages keep between visits: the spaced-repetition queue and the quiz
//! in progress, as JSON (`wire::StoredQueue`, `wire::StoredQuiz`) under `prefs` keys in
//! IndexedDB; plus the two inputs core takes from the outside world here: a random seed and the
//! reader's day number.

use bookside_core::engine::review::Queue;
use bookside_core::wire::{StoredQueue, StoredQuiz};

use crate::storage::{self, StorageError};

/// The `prefs` key of the review queue.
pub const QUEUE_KEY: &str = "reviewQueue";

/// The `prefs` key of the quiz in progress for `id` (a card id, or `phase0`).
pub fn quiz_key(id: &str) -> String {
    format!("quiz:{id}")
}

/// A fresh 64-bit seed from the browser's cryptographic generator (Math.random if it has none).
pub fn fresh_seed() -> u64 {
    let mut bytes = [0u8; 8];
    let filled = web_sys::window().and_then(|w| w.crypto().ok()).is_some_and(|c| c.get_random_values_with_u8_array(&mut bytes).is_ok());
    if filled {
        u64::from_le_bytes(bytes)
    } else {
        let hi = (js_sys::Math::random() * 4_294_967_296.0) as u64;
        let lo = (js_sys::Math::random() * 4_294_967_296.0) as u64;
        (hi << 32) | lo
    }
}

/// Today as a day number in the reader's time zone (`engine::hour::local_day`).
pub fn today() -> i64 {
    let now = js_sys::Date::new_0();
    let unix = (now.get_time() / 1000.0).floor() as i64;
    // getTimezoneOffset is minutes *behind* UTC: Paris in winter gives -60.
    let offset = -(now.get_timezone_offset() as i32);
    bookside_core::engine::hour::local_day(unix, offset)
}

pub async fn load_queue() -> Result<Queue, StorageError> {
    let Some(text) = storage::load_pref(QUEUE_KEY).await? else { return Ok(Queue::default()) };
    serde_json::from_str::<StoredQueue>(&text)
        .map(|s| s.to_queue())
        .map_err(|e| StorageError(format!("the review queue in this browser is damaged ({e}); review starts afresh from your next quiz")))
}

pub async fn save_queue(queue: &Queue) -> Result<(), StorageError> {
    let text = serde_json::to_string(&StoredQueue::from_queue(queue)).map_err(|e| StorageError(e.to_string()))?;
    storage::save_pref(QUEUE_KEY, &text).await
}

/// The stored attempt for `id`; a damaged one reads as none (a new attempt starts).
pub async fn load_quiz(id: &str) -> Result<Option<StoredQuiz>, StorageError> {
    let text = storage::load_pref(&quiz_key(id)).await?;
    Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
}

pub async fn save_quiz(id: &str, quiz: &StoredQuiz) -> Result<(), StorageError> {
    let text = serde_json::to_string(quiz).map_err(|e| StorageError(e.to_string()))?;
    storage::save_pref(&quiz_key(id), &text).await
}
