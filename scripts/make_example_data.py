"""Write mlci's bundled example: a simulated emotion-classification test set.

    python scripts/make_example_data.py            # writes src/mlci/data/emotion_example.csv
    python scripts/make_example_data.py --out x.csv --seed 7

The data are synthetic but shaped like a real speech-emotion test set: 40 speakers with
very unequal numbers of utterances, one to three recording sessions each, four emotions
with speaker-specific class mixes, and speaker effects on both the classifier's accuracy
and the per-utterance word error rate, so that the samples of one speaker are
correlated (which is why ``--condition speaker`` matters).  See docs/example_data.md.

Only ``Generator.random``, ``Generator.integers`` and ``Generator.standard_normal`` are
used: their streams have been stable across numpy releases, so the file is reproducible.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np

EMOTIONS = ("neutral", "happy", "sad", "angry")
N_SPEAKERS = 40
TARGET_ROWS = 1500
DEFAULT_SEED = 20240501
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src" / "mlci" / "data" / "emotion_example.csv"

COLUMNS = (
    "utterance",
    "speaker",
    "session",
    "label",
    "pred",
    "pred_baseline",
    *(f"score_{e}" for e in EMOTIONS),
    "is_angry",
    "num_words",
    "wer",
)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def simulate(seed: int = DEFAULT_SEED) -> list[dict[str, object]]:
    """Rows of the example test set (a pure function of ``seed``)."""
    rng = np.random.default_rng(seed)
    # a second, weaker system ("pred_baseline") for `mlci compare`; its own stream keeps
    # every other column identical to what the main stream alone gives
    rng_base = np.random.default_rng([seed, 1])
    k = len(EMOTIONS)
    # utterances per speaker: log-normal sizes (a few talkative speakers, many quiet ones)
    raw = np.exp(0.7 * rng.standard_normal(N_SPEAKERS))
    sizes = np.maximum(8, np.round(raw / raw.sum() * TARGET_ROWS)).astype(int)
    # per-speaker effects
    class_mix = _softmax(0.8 * rng.standard_normal((N_SPEAKERS, k)))  # who is often angry...
    skill = 0.6 * rng.standard_normal(N_SPEAKERS)  # how readable the speaker is for the model
    wer_level = -1.6 + 0.5 * rng.standard_normal(N_SPEAKERS)  # logit of the speaker's WER
    n_sessions = rng.integers(1, 4, N_SPEAKERS)
    rows: list[dict[str, object]] = []
    for s in range(N_SPEAKERS):
        spk = f"spk{s + 1:02d}"
        n = int(sizes[s])
        session_idx = rng.integers(0, n_sessions[s], n)
        session_idx.sort()
        # true emotions from the speaker's mix, by inverse CDF
        cdf = np.cumsum(class_mix[s])
        labels = np.minimum(np.searchsorted(cdf, rng.random(n) * cdf[-1], side="right"), k - 1)
        # a session effect on top of the speaker effect (recording conditions)
        sess_shift = 0.3 * rng.standard_normal(n_sessions[s])
        signal = 1.6 + skill[s] + sess_shift[session_idx]
        logits = 1.0 * rng.standard_normal((n, k)) + 0.25 * rng.standard_normal(k)
        logits[np.arange(n), labels] += signal
        # the model confuses neutral and sad a little more than the rest
        logits[:, 2] += 0.35 * (labels == 0)
        logits[:, 0] += 0.35 * (labels == 2)
        probs = _softmax(logits)
        preds = probs.argmax(axis=1)
        # the baseline sees the same utterances (correlated errors) with less signal
        logits_base = logits + 0.6 * rng_base.standard_normal((n, k))
        logits_base[np.arange(n), labels] -= 0.12 * signal
        preds_base = logits_base.argmax(axis=1)
        # transcripts: word counts and word error rates with a speaker effect
        words = 3 + np.floor(np.exp(2.2 + 0.6 * rng.standard_normal(n))).astype(int)
        words = np.minimum(words, 60)
        p_err = 1.0 / (1.0 + np.exp(-(wer_level[s] + 0.4 * rng.standard_normal(n))))
        for i in range(n):
            errors = int((rng.random(words[i]) < p_err[i]).sum())
            p = np.round(probs[i], 4)
            rows.append(
                {
                    "utterance": f"{spk}_s{session_idx[i] + 1}_{i + 1:03d}",
                    "speaker": spk,
                    "session": f"{spk}_s{session_idx[i] + 1}",
                    "label": EMOTIONS[labels[i]],
                    "pred": EMOTIONS[preds[i]],
                    "pred_baseline": EMOTIONS[preds_base[i]],
                    **{f"score_{e}": f"{p[j]:.4f}" for j, e in enumerate(EMOTIONS)},
                    "is_angry": int(labels[i] == EMOTIONS.index("angry")),
                    "num_words": int(words[i]),
                    "wer": f"{errors / words[i]:.4f}",
                }
            )
    return rows


def write(path: Path, rows: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = ap.parse_args(argv)
    rows = simulate(args.seed)
    write(args.out, rows)
    print(f"wrote {len(rows)} rows to {args.out}")


if __name__ == "__main__":
    main()
