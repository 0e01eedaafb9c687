//! Room for the items of a long document read one at a time.

/// Makes room in `items`, a vector of a document's items read in order,
/// for `more` more, as many as the items so far predict: the bytes left
/// (`total` less `to`, where the read of the `more` has reached) at the
/// bytes an item took so far (`to` less `from`, where the first began).
/// Grown by doubling, the steps of a long plan left behind them freed
/// blocks about as large as the final vector, which the allocator kept
/// resident (`docs/performance.md`, "Where the memory goes").
///
/// A prediction is trusted only up to what doubling would reserve or twice
/// the document's bytes, whichever is more (a hostile document whose first
/// items are tiny cannot make it reserve much), and the vector grows by at
/// least a quarter each time (a prediction too short costs few moves).
pub(crate) fn room_for<T>(items: &mut Vec<T>, more: usize, from: usize, to: usize, total: usize) {
    let n = items.len();
    if items.capacity().saturating_sub(n) >= more {
        return;
    }
    let read = to.saturating_sub(from) as u64;
    if n < PREDICT_AFTER || read == 0 {
        items.reserve(more);
        return;
    }
    let seen = n.saturating_add(more) as u64;
    let left = total.saturating_sub(to) as u64;
    let predicted = seen.saturating_add(left.saturating_mul(seen) / read);
    let predicted = usize::try_from(predicted.saturating_add(predicted / 64)).unwrap_or(usize::MAX);
    let ceiling =
        (total.saturating_mul(2) / std::mem::size_of::<T>().max(1)).max(n.saturating_mul(2));
    let want = predicted
        .min(ceiling)
        .max(n.saturating_add(n / 4))
        .max(n.saturating_add(more));
    items.reserve_exact(want.saturating_sub(n));
}

/// How many items [`room_for`] waits for before it predicts from them.
const PREDICT_AFTER: usize = 16;

#[cfg(test)]
mod tests {
    use super::room_for;

    /// Pushes `count` items of `size` bytes each (as a document would
    /// hold them, `tail` bytes after the last), making room as the front
    /// ends do; returns the final capacity and how many times it moved.
    fn read(count: usize, size: impl Fn(usize) -> usize, tail: usize) -> (usize, usize) {
        let total: usize = (0..count).map(&size).sum::<usize>() + tail;
        let mut items: Vec<[u8; 200]> = Vec::new();
        let (mut to, mut moves, mut cap) = (0usize, 0usize, 0usize);
        for i in 0..count {
            to += size(i);
            room_for(&mut items, 1, 0, to, total);
            items.push([0; 200]);
            if items.capacity() != cap {
                moves += 1;
                cap = items.capacity();
            }
        }
        (cap, moves)
    }

    #[test]
    fn items_of_one_size_get_room_for_them_all_once_predicted() {
        let (cap, moves) = read(10_000, |_| 278, 40);
        assert!((10_000..=10_200).contains(&cap), "{cap}");
        // Doubling up to 16 (4, 8, 16), then one prediction.
        assert!(moves <= 4, "{moves}");
    }

    #[test]
    fn a_prediction_too_short_still_grows_by_a_quarter() {
        // Items that get shorter: every prediction falls short.
        let (cap, moves) = read(20_000, |i| 1_000 - i / 25, 0);
        assert!((20_000..=25_000).contains(&cap), "{cap}");
        assert!(moves <= 20, "{moves}");
    }

    #[test]
    fn a_prediction_too_long_stops_at_twice_the_bytes() {
        // Items that get longer: the first ones predict too many.
        let total: usize = (0..20_000).map(|i| 10 + i / 10).sum();
        let (cap, _) = read(20_000, |i| 10 + i / 10, 0);
        assert!(cap <= 2 * total / 200, "{cap}");
    }

    #[test]
    fn tiny_first_items_cannot_make_it_reserve_much() {
        // Sixteen 3-byte steps, then 100 MB the read has not reached.
        let total = 100_000_000;
        let mut items: Vec<[u8; 200]> = vec![[0; 200]; 16];
        items.shrink_to_fit();
        room_for(&mut items, 1, 0, 48, total);
        // Twice the document's bytes, not 33 million steps of 200 bytes.
        assert!(items.capacity() <= 2 * total / 200, "{}", items.capacity());
    }

    #[test]
    fn room_already_there_is_left_alone() {
        let mut items: Vec<u32> = Vec::with_capacity(100);
        items.extend(0..50);
        room_for(&mut items, 10, 0, 500, 1_000_000);
        assert_eq!(items.capacity(), 100);
    }
}
