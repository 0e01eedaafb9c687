//! The ordering graph: strongly connected components (iterative Tarjan) to
//! find cycles, shortest paths inside a component to show one, and a
//! topological layering into waves. Everything is linear in the number of
//! steps and edges, and nothing recurses: the input decides the depth.

use std::collections::VecDeque;

const UNVISITED: usize = usize::MAX;

/// The strongly connected components of a graph given by `succ` (the
/// targets of each node's edges) that hold a cycle: more than one node, or
/// one node with an edge to itself. Each component is sorted; components are
/// in order of their smallest node.
pub fn cyclic_components(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = succ.len();
    let mut index = vec![UNVISITED; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut call: Vec<(usize, usize)> = Vec::new();
    let mut next = 0usize;
    let mut out: Vec<Vec<usize>> = Vec::new();

    let set = |v: &mut Vec<usize>, i: usize, x: usize| {
        if let Some(slot) = v.get_mut(i) {
            *slot = x;
        }
    };
    let get = |v: &Vec<usize>, i: usize| v.get(i).copied().unwrap_or(0);

    for root in 0..n {
        if index.get(root).copied() != Some(UNVISITED) {
            continue;
        }
        set(&mut index, root, next);
        set(&mut low, root, next);
        next += 1;
        stack.push(root);
        if let Some(s) = on_stack.get_mut(root) {
            *s = true;
        }
        call.push((root, 0));
        while let Some(frame) = call.last_mut() {
            let v = frame.0;
            let edge = succ.get(v).and_then(|e| e.get(frame.1)).copied();
            if let Some(w) = edge {
                frame.1 += 1;
                if w >= n {
                    continue;
                }
                if get(&index, w) == UNVISITED {
                    set(&mut index, w, next);
                    set(&mut low, w, next);
                    next += 1;
                    stack.push(w);
                    if let Some(s) = on_stack.get_mut(w) {
                        *s = true;
                    }
                    call.push((w, 0));
                } else if on_stack.get(w).copied().unwrap_or(false) {
                    let l = get(&low, v).min(get(&index, w));
                    set(&mut low, v, l);
                }
                continue;
            }
            call.pop();
            if let Some(&(u, _)) = call.last() {
                let l = get(&low, u).min(get(&low, v));
                set(&mut low, u, l);
            }
            if get(&low, v) == get(&index, v) {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    if let Some(s) = on_stack.get_mut(w) {
                        *s = false;
                    }
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                let self_loop = component.len() == 1 && succ.get(v).is_some_and(|e| e.contains(&v));
                if component.len() > 1 || self_loop {
                    component.sort_unstable();
                    out.push(component);
                }
            }
        }
    }
    out.sort_by_key(|c| c.first().copied().unwrap_or(0));
    out
}

/// A shortest path of edges from `from` to `to` that stays inside `inside`
/// (a membership test), as the list of nodes `from, …, to`. Breadth-first.
pub fn path_within(
    succ: &[Vec<usize>],
    from: usize,
    to: usize,
    inside: impl Fn(usize) -> bool,
) -> Option<Vec<usize>> {
    if from == to {
        return Some(vec![from]);
    }
    let mut parent: crate::FastMap<usize, usize> = crate::FastMap::default();
    let mut queue = VecDeque::from([from]);
    parent.insert(from, from);
    while let Some(v) = queue.pop_front() {
        for &w in succ.get(v).map(Vec::as_slice).unwrap_or(&[]) {
            if !inside(w) || parent.contains_key(&w) {
                continue;
            }
            parent.insert(w, v);
            if w == to {
                let mut path = vec![to];
                let mut cur = to;
                while cur != from {
                    cur = *parent.get(&cur)?;
                    path.push(cur);
                }
                path.reverse();
                return Some(path);
            }
            queue.push_back(w);
        }
    }
    None
}

/// Layers an acyclic graph into waves: a node's wave is one more than the
/// latest wave of the nodes it depends on (`deps`), and nodes keep their
/// index order inside a wave. `None` when the graph has a cycle.
pub fn waves(deps: &[Vec<usize>]) -> Option<Vec<Vec<usize>>> {
    let n = deps.len();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut pending = vec![0usize; n];
    for (v, ds) in deps.iter().enumerate() {
        for &d in ds {
            if let Some(list) = dependents.get_mut(d) {
                list.push(v);
                if let Some(p) = pending.get_mut(v) {
                    *p += 1;
                }
            }
        }
    }
    let mut level = vec![0usize; n];
    let mut queue: VecDeque<usize> = (0..n).filter(|&v| pending.get(v) == Some(&0)).collect();
    let mut done = 0usize;
    while let Some(v) = queue.pop_front() {
        done += 1;
        let lv = level.get(v).copied().unwrap_or(0);
        for &w in dependents.get(v).map(Vec::as_slice).unwrap_or(&[]) {
            if let Some(l) = level.get_mut(w) {
                *l = (*l).max(lv + 1);
            }
            if let Some(p) = pending.get_mut(w) {
                *p -= 1;
                if *p == 0 {
                    queue.push_back(w);
                }
            }
        }
    }
    if done < n {
        return None;
    }
    let depth = level.iter().copied().max().map_or(0, |m| m + 1);
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); depth];
    for (v, &l) in level.iter().enumerate() {
        if let Some(w) = out.get_mut(l) {
            w.push(v);
        }
    }
    Some(out)
}

/// [`waves`] of a graph whose every edge goes to an earlier node (`deps`
/// gives the nodes each node depends on, all below it): such a graph has no
/// cycle, and one pass in index order decides each node's wave from its
/// dependencies'. The same waves as [`waves`], without its lists of
/// dependents and queue.
pub fn waves_backward<'d, D>(n: usize, deps: impl Fn(usize) -> D) -> Vec<Vec<usize>>
where
    D: IntoIterator<Item = &'d usize>,
{
    let mut level: Vec<usize> = Vec::with_capacity(n);
    let mut depth = 0usize;
    for v in 0..n {
        let lv = deps(v)
            .into_iter()
            .filter_map(|&d| level.get(d).map(|l| l + 1))
            .max()
            .unwrap_or(0);
        depth = depth.max(lv + 1);
        level.push(lv);
    }
    let mut sizes = vec![0usize; depth];
    for &l in &level {
        if let Some(s) = sizes.get_mut(l) {
            *s += 1;
        }
    }
    let mut out: Vec<Vec<usize>> = sizes.into_iter().map(Vec::with_capacity).collect();
    for (v, &l) in level.iter().enumerate() {
        if let Some(w) = out.get_mut(l) {
            w.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_cycles_and_self_loops() {
        // 0 <- 1 <- 2, 2 -> 0 plus 0 -> 2 (cycle 0,2 and through 1), 3 -> 3.
        let succ = vec![vec![2], vec![0], vec![1], vec![3], vec![]];
        let c = cyclic_components(&succ);
        assert_eq!(c, vec![vec![0, 1, 2], vec![3]]);
        let p = path_within(&succ, 2, 0, |v| v < 3);
        assert_eq!(p, Some(vec![2, 1, 0]));
    }

    #[test]
    fn no_cycles_in_a_dag() {
        let deps = vec![vec![], vec![0], vec![0], vec![1, 2], vec![]];
        assert!(cyclic_components(&deps).is_empty());
        assert_eq!(waves(&deps), Some(vec![vec![0, 4], vec![1, 2], vec![3]]));
        assert_eq!(waves(&[vec![1], vec![0]]), None);
        let backward = waves_backward(deps.len(), |v| deps.get(v).into_iter().flatten());
        assert_eq!(Some(backward), waves(&deps));
        assert!(waves_backward(0, |_| std::iter::empty()).is_empty());
    }

    #[test]
    fn deep_chains_do_not_recurse() {
        let n = 200_000;
        let mut succ: Vec<Vec<usize>> = (0..n)
            .map(|i| if i == 0 { vec![] } else { vec![i - 1] })
            .collect();
        assert!(cyclic_components(&succ).is_empty());
        succ[0] = vec![n - 1];
        let c = cyclic_components(&succ);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].len(), n);
        assert_eq!(waves(&succ), None);
    }
}
