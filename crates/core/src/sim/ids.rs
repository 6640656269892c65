//! Typed indices for the engine's per-worker and per-container state.
//!
//! A probe worker and a container are both numbered from zero, so a bare `usize` lets one be
//! passed where the other is meant. [`WorkerId`] and [`ContainerId`] keep them apart, and
//! [`PerWorker`] / [`PerContainer`] are vectors indexed only by their own kind of id. Both are
//! plain wrappers: indexing costs what indexing a `Vec` costs. The public API keeps its `usize`
//! indices; conversion happens where the engine meets it.

use core::hash::{Hash, Hasher};
use core::marker::PhantomData;
use core::ops::{Index, IndexMut};

macro_rules! typed_index {
    ($(#[$doc:meta])* $id:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        pub(crate) struct $id(usize);

        impl $id {
            /// The id of the `i`-th element.
            #[inline]
            pub(crate) const fn new(i: usize) -> $id {
                $id(i)
            }

            /// The ids of the positions in `r`, in order.
            #[inline]
            #[allow(dead_code, reason = "one of the two ids has no use for it")]
            pub(crate) fn range(
                r: core::ops::Range<usize>,
            ) -> impl DoubleEndedIterator<Item = $id> + Clone {
                r.map($id)
            }

            /// The position this id stands for.
            #[inline]
            pub(crate) const fn index(self) -> usize {
                self.0
            }
        }

        /// The bare index, as messages have always shown it.
        impl core::fmt::Display for $id {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

typed_index!(
    /// A probe worker's index, in creation order (P6).
    WorkerId
);
typed_index!(
    /// A container's index in the pod spec (init containers first).
    ContainerId
);

/// An index type of a [`Typed`] vector.
pub(crate) trait Id: Copy {
    fn from_index(i: usize) -> Self;
    fn to_index(self) -> usize;
}

impl Id for WorkerId {
    #[inline]
    fn from_index(i: usize) -> WorkerId {
        WorkerId(i)
    }
    #[inline]
    fn to_index(self) -> usize {
        self.0
    }
}

impl Id for ContainerId {
    #[inline]
    fn from_index(i: usize) -> ContainerId {
        ContainerId(i)
    }
    #[inline]
    fn to_index(self) -> usize {
        self.0
    }
}

/// A vector indexed by one kind of id only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Typed<I, T> {
    items: Vec<T>,
    ids: PhantomData<fn(I)>,
}

/// Per probe worker state.
pub(crate) type PerWorker<T> = Typed<WorkerId, T>;
/// Per container state.
pub(crate) type PerContainer<T> = Typed<ContainerId, T>;

impl<I: Id, T> Typed<I, T> {
    #[inline]
    pub(crate) fn from_vec(items: Vec<T>) -> Typed<I, T> {
        Typed {
            items,
            ids: PhantomData,
        }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    #[cfg(test)]
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    #[inline]
    pub(crate) fn get(&self, i: I) -> Option<&T> {
        self.items.get(i.to_index())
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, i: I) -> Option<&mut T> {
        self.items.get_mut(i.to_index())
    }

    #[inline]
    pub(crate) fn iter(&self) -> core::slice::Iter<'_, T> {
        self.items.iter()
    }

    #[inline]
    pub(crate) fn iter_mut(&mut self) -> core::slice::IterMut<'_, T> {
        self.items.iter_mut()
    }

    /// Every id, in order.
    #[inline]
    pub(crate) fn ids(&self) -> impl DoubleEndedIterator<Item = I> + use<I, T> {
        (0..self.items.len()).map(I::from_index)
    }

    /// Appends an element, whose id is the former length.
    #[cfg(test)]
    #[inline]
    pub(crate) fn push(&mut self, item: T) {
        self.items.push(item);
    }

    /// Sets every element to `value`.
    #[inline]
    pub(crate) fn fill(&mut self, value: T)
    where
        T: Clone,
    {
        self.items.fill(value);
    }

    /// Becomes a copy of `other`, in the storage it has.
    #[inline]
    pub(crate) fn copy_from(&mut self, other: &Typed<I, T>)
    where
        T: Clone,
    {
        self.items.clear();
        self.items.extend_from_slice(&other.items);
    }

    /// The elements as a plain slice, for code that does not index them.
    #[inline]
    pub(crate) fn as_slice(&self) -> &[T] {
        &self.items
    }
}

impl<I, T> Default for Typed<I, T> {
    fn default() -> Typed<I, T> {
        Typed {
            items: Vec::new(),
            ids: PhantomData,
        }
    }
}

/// Hashes as the plain vector would.
impl<I, T: Hash> Hash for Typed<I, T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.items.hash(state);
    }
}

impl<I: Id, T> Index<I> for Typed<I, T> {
    type Output = T;
    #[inline]
    fn index(&self, i: I) -> &T {
        &self.items[i.to_index()]
    }
}

impl<I: Id, T> IndexMut<I> for Typed<I, T> {
    #[inline]
    fn index_mut(&mut self, i: I) -> &mut T {
        &mut self.items[i.to_index()]
    }
}

impl<'a, I, T> IntoIterator for &'a Typed<I, T> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<'a, I, T> IntoIterator for &'a mut Typed<I, T> {
    type Item = &'a mut T;
    type IntoIter = core::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter_mut()
    }
}
