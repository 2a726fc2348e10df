"""Scores sorted once into tie groups, each class's count (or weight) per group: what
the curve bands and the threshold choice read every resample from."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dartboard.metrics._ranking import group_scores

__all__ = ["SortedScores"]


@dataclass(frozen=True)
class SortedScores:
    """Tie groups in decreasing score order with each class's count (or weight)."""

    scores: np.ndarray      # (G,) distinct, descending
    pos: np.ndarray         # (G,) positive count or weight per group
    neg: np.ndarray
    cells: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None
    # with weights: (group, is_positive, weight, row count) per resampling cell

    @classmethod
    def build(cls, positive: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> SortedScores:
        scores, pos, neg = group_scores(positive, s, w)
        scores, pos, neg = scores[::-1], pos[::-1].astype(np.float64), neg[::-1].astype(np.float64)
        if w is None:
            return cls(scores, pos, neg, None)
        keep = w != 0
        positive, s, w = positive[keep], s[keep], w[keep].astype(np.float64)
        group = scores.shape[0] - 1 - np.searchsorted(scores[::-1], s)
        order = np.lexsort((w, group, ~positive))  # by class, then group, then weight
        key = np.stack([~positive[order], group[order], w[order]])
        new = np.ones(order.shape[0], dtype=bool)
        new[1:] = np.any(key[:, 1:] != key[:, :-1], axis=0)
        starts = np.flatnonzero(new)
        size = np.diff(np.append(starts, order.shape[0]))
        return cls(scores, pos, neg, (group[order][starts], positive[order][starts],
                                      w[order][starts], size))

    def cumulative(self, pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(b, G + 1) cumulative positive and negative weight before each group."""
        zero = np.zeros(pos.shape[:-1] + (1,))
        return (np.concatenate([zero, np.cumsum(pos, axis=-1)], axis=-1),
                np.concatenate([zero, np.cumsum(neg, axis=-1)], axis=-1))

    def resampling_cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(group, is_positive, weight, rows) of the cells a resample draws counts of,
        positives first, each class by group."""
        if self.cells is not None:
            return self.cells
        cells = []
        for is_pos, counts in ((True, self.pos), (False, self.neg)):
            g = np.flatnonzero(counts)
            cells.append((g, np.full(g.shape[0], is_pos), np.ones(g.shape[0]), counts[g]))
        group, is_positive, weight, rows = (np.concatenate(parts) for parts in zip(*cells))
        return group, is_positive, weight, rows

    def group_sums(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(b, G) positive and negative weight per group from (b, cells) row counts."""
        group, positive, weight, _ = self.resampling_cells()
        new = np.ones(group.shape[0], dtype=bool)
        new[1:] = (group[1:] != group[:-1]) | (positive[1:] != positive[:-1])
        starts = np.flatnonzero(new)
        sums = np.add.reduceat(counts * weight, starts, axis=1)
        per = np.zeros((2, counts.shape[0], self.scores.shape[0]))
        per[positive[starts].astype(int), :, group[starts]] = sums.T
        return per[1], per[0]
