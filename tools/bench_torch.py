#!/usr/bin/python3
"""bench_torch.py — the PyTorch side of attnlab's benchmark: the same model, batch and figures as `attnlab bench`.

    /usr/bin/python3 tools/bench_torch.py --config configs/bench/base.yaml [--steps 10] [--warmup 2] [--json]

Needs torch (Debian: apt-get install python3-torch libopenblas0-pthread) and PyYAML (python3-yaml, pulled in by
python3-torch). Reads the model sizes from an attnlab config (model.*, tokenizer.vocab_size, train.label_smoothing,
train.beta1/beta2/eps, train.clip_norm) and builds the model attnlab builds:
  * an encoder–decoder Transformer from nn.TransformerEncoderLayer / nn.TransformerDecoderLayer (batch_first,
    post-LN as in the paper, ReLU, dropout), with no final LayerNorm after the stacks (attnlab's post-LN has none);
  * separate source and target embeddings scaled by √d_model, plus sinusoidal positions;
  * a separate output projection (no bias) to the vocabulary;
  * label-smoothed cross entropy (ignore pad 0), gradient clipping, Adam (β 0.9 / 0.98, ε 1e-9), noam rate.
The batch: B sentences × T random ids in [4, V) on each side (tgt_in = bos + T−1 ids, targets = those + eos).
Timed like attnlab: forward (model + loss), backward, optimizer (clip, step, zero_grad), medians over the steps;
the step is timed at 1 and at 2 threads (torch.set_num_threads) and the faster is reported.
Decoding is the PyTorch tutorial's greedy loop ("Language Translation with nn.Transformer and torchtext"): one
sentence at a time, the decoder re-run over the whole prefix at every step, the generator on the last position,
stopping at eos or after 32 tokens, under torch.no_grad. Beam search: not implemented here (reported as null).
The FLOP count is attnlab's (src/lab/bench.h); the GEMM peak is a torch.mm of two [1024, 1024] matrices.
"""
import argparse
import gc
import json
import math
import os
import resource
import statistics
import sys
import time

try:
    import torch
    import torch.nn as nn
except ImportError:
    sys.stderr.write("bench_torch.py: PyTorch is not installed; on Debian: apt-get install python3-torch "
                     "libopenblas0-pthread\n")
    sys.exit(77)
try:
    import yaml
except ImportError:
    sys.stderr.write("bench_torch.py: PyYAML is not installed; on Debian: apt-get install python3-yaml\n")
    sys.exit(77)

PAD, BOS, EOS, UNK = 0, 1, 2, 3


def read_config(path, vocab_override):
    """The model and training keys of an attnlab config, with attnlab's defaults (configs/README.md)."""
    with open(path) as f:
        doc = yaml.safe_load(f) or {}
    model, train, tok = doc.get("model") or {}, doc.get("train") or {}, doc.get("tokenizer") or {}
    return {
        "vocab": vocab_override or int(tok.get("vocab_size", 8000)),
        "d_model": int(model.get("d_model", 128)),
        "heads": int(model.get("heads", 4)),
        "d_ff": int(model.get("d_ff", 512)),
        "encoder_layers": int(model.get("encoder_layers", 2)),
        "decoder_layers": int(model.get("decoder_layers", 2)),
        "dropout": float(model.get("dropout", 0.1)),
        "label_smoothing": float(train.get("label_smoothing", 0.1)),
        "beta1": float(train.get("beta1", 0.9)),
        "beta2": float(train.get("beta2", 0.98)),
        "eps": float(train.get("eps", 1e-9)),
        "clip_norm": float(train.get("clip_norm", 1.0)),
        "warmup_steps": int(train.get("warmup_steps", 4000)),
        "lr": float(train.get("lr", 1.0)),
    }


class Seq2Seq(nn.Module):
    """The encoder–decoder of Vaswani et al. 2017, as attnlab's Seq2Seq (src/model/transformer.h)."""

    def __init__(self, c):
        super().__init__()
        d = c["d_model"]
        self.d_model = d
        self.src_embed = nn.Embedding(c["vocab"], d)
        self.tgt_embed = nn.Embedding(c["vocab"], d)
        self.dropout = nn.Dropout(c["dropout"])
        enc = nn.TransformerEncoderLayer(d, c["heads"], c["d_ff"], c["dropout"], batch_first=True, norm_first=False)
        dec = nn.TransformerDecoderLayer(d, c["heads"], c["d_ff"], c["dropout"], batch_first=True, norm_first=False)
        self.encoder = nn.TransformerEncoder(enc, c["encoder_layers"], enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(dec, c["decoder_layers"])
        self.output_projection = nn.Linear(d, c["vocab"], bias=False)
        self.register_buffer("positions", self.sinusoid(1024, d), persistent=False)

    @staticmethod
    def sinusoid(length, d):
        """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(…)."""
        pos = torch.arange(length, dtype=torch.float32).unsqueeze(1)
        div = torch.exp(torch.arange(0, d, 2, dtype=torch.float32) * (-math.log(10000.0) / d))
        pe = torch.zeros(length, d)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        return pe

    def embed(self, table, ids):                          # ids [B, T] → [B, T, d]
        return self.dropout(table(ids) * math.sqrt(self.d_model) + self.positions[: ids.size(1)])

    def encode(self, src):
        return self.encoder(self.embed(self.src_embed, src), src_key_padding_mask=(src == PAD))

    def decode(self, tgt_in, memory, src):
        T = tgt_in.size(1)
        causal = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
        return self.decoder(self.embed(self.tgt_embed, tgt_in), memory, tgt_mask=causal,
                            tgt_key_padding_mask=(tgt_in == PAD), memory_key_padding_mask=(src == PAD))

    def forward(self, src, tgt_in):                       # → logits [B, T, V]
        return self.output_projection(self.decode(tgt_in, self.encode(src), src))


def forward_flops(c, B, S, T):
    """attnlab's analytic count of matrix-product FLOPs of one forward pass (src/lab/bench.h)."""
    d, d_ff, V = c["d_model"], c["d_ff"], c["vocab"]
    encoder_layer = B * S * (8 * d * d + 4 * S * d + 4 * d * d_ff)
    decoder_layer = B * T * (8 * d * d + 4 * T * d + 4 * d * d_ff) + B * T * 4 * d * d + B * S * 4 * d * d \
        + B * T * 4 * S * d
    return c["encoder_layers"] * encoder_layer + c["decoder_layers"] * decoder_layer + B * T * 2 * d * V


def noam(c, step):
    return c["lr"] * c["d_model"] ** -0.5 * min(step ** -0.5, step * c["warmup_steps"] ** -1.5)


def time_training(c, args, threads):
    torch.set_num_threads(threads)
    torch.manual_seed(args.seed)
    model = Seq2Seq(c).train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(c["beta1"], c["beta2"]), eps=c["eps"])
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=c["label_smoothing"])
    gen = torch.Generator().manual_seed(args.seed + 100)
    B, T, V = args.batch, args.length, c["vocab"]
    src = torch.randint(UNK + 1, V, (B, T), generator=gen)
    words = torch.randint(UNK + 1, V, (B, T - 1), generator=gen)
    tgt_in = torch.cat([torch.full((B, 1), BOS), words], dim=1)
    targets = torch.cat([words, torch.full((B, 1), EOS)], dim=1)
    times = {"step": [], "forward": [], "backward": [], "optimizer": []}
    for step in range(1, args.warmup + args.steps + 1):
        start = time.perf_counter()
        logits = model(src, tgt_in)                                   # [B, T, V]
        loss = loss_fn(logits.reshape(-1, V), targets.reshape(-1))
        loss.item()
        forward_done = time.perf_counter()
        loss.backward()
        del logits, loss
        backward_done = time.perf_counter()
        nn.utils.clip_grad_norm_(model.parameters(), c["clip_norm"])
        for group in optimizer.param_groups:
            group["lr"] = noam(c, step)
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)
        end = time.perf_counter()
        if step > args.warmup:
            times["step"].append(end - start)
            times["forward"].append(forward_done - start)
            times["backward"].append(backward_done - forward_done)
            times["optimizer"].append(end - backward_done)
    medians = {k: statistics.median(v) for k, v in times.items()}
    return model, medians


@torch.no_grad()
def greedy_decode(model, src, max_len):
    """The PyTorch tutorial's loop: re-run the decoder on the whole prefix at every step."""
    memory = model.encode(src)
    ys = torch.full((1, 1), BOS, dtype=torch.long)
    for _ in range(max_len):
        out = model.decode(ys, memory, src)                           # [1, t, d]
        prob = model.output_projection(out[:, -1])                    # [1, V]
        next_word = int(torch.argmax(prob, dim=1))
        if next_word == EOS:
            break
        ys = torch.cat([ys, torch.full((1, 1), next_word, dtype=torch.long)], dim=1)
    return ys[0, 1:].tolist()


def gemm_gflops(n):
    a, b = torch.randn(n, n), torch.randn(n, n)
    torch.mm(a, b)
    seconds = []
    for _ in range(5):
        start = time.perf_counter()
        torch.mm(a, b)
        seconds.append(time.perf_counter() - start)
    return 2.0 * n ** 3 / statistics.median(seconds) / 1e9


def model_shapes_gflops(c, B, T, repeats=5):
    """torch.mm's GFLOP/s at the model's products, as `attnlab bench` measures each of its backends
    (src/lab/bench_gemm.h): for every Linear shape W [out, in] on `rows` positions, y += x · Wᵀ, ∂x += G · W and
    ∂W += Gᵀ · x, each shape's time the median of `repeats`, weighted by how often one training step runs it."""
    d, d_ff, V, rows = c["d_model"], c["d_ff"], c["vocab"], B * T
    chunk = min(rows, max(16, (1 << 22) // max(V, 1)))       # the output layer's chunk of rows in attnlab
    shapes = [(rows, d, d, 4 * c["encoder_layers"] + 8 * c["decoder_layers"]),
              (rows, d, d_ff, c["encoder_layers"] + c["decoder_layers"]),
              (rows, d_ff, d, c["encoder_layers"] + c["decoder_layers"]),
              (chunk, d, V, -(-rows // chunk))]
    total_flops = total_seconds = 0.0
    for n, fan_in, fan_out, count in shapes:
        x, W, G = torch.randn(n, fan_in), torch.randn(fan_out, fan_in), torch.randn(n, fan_out)
        y, dx, dW = torch.zeros(n, fan_out), torch.zeros(n, fan_in), torch.zeros(fan_out, fan_in)
        seconds = []
        for repeat in range(repeats + 1):                   # the first round warms up, untimed
            start = time.perf_counter()
            y.addmm_(x, W.t())
            dx.addmm_(G, W)
            dW.addmm_(G.t(), x)
            if repeat > 0:
                seconds.append(time.perf_counter() - start)
        total_flops += count * 3 * 2.0 * n * fan_in * fan_out
        total_seconds += count * statistics.median(seconds)
    return total_flops / total_seconds / 1e9


def blas_core():
    """The kernel OpenBLAS chose for this CPU ("Cooperlake", "Haswell", …), or None when torch does not use it.
    OPENBLAS_CORETYPE in the environment forces one: tools/bench.sh unsets it for this script (see there)."""
    import ctypes
    try:
        corename = ctypes.CDLL("libopenblas.so.0").openblas_get_corename
    except (OSError, AttributeError):
        return None
    corename.restype = ctypes.c_char_p
    return corename().decode()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", required=True, help="an attnlab config (e.g. configs/bench/base.yaml)")
    parser.add_argument("--steps", type=int, default=10, help="timed training steps (default 10)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps first (default 2)")
    parser.add_argument("--threads", default="1,2", help="thread counts to try; the fastest step wins (default 1,2)")
    parser.add_argument("--batch", type=int, default=64, help="sentences per batch (default 64)")
    parser.add_argument("--length", type=int, default=32, help="tokens per sentence, each side (default 32)")
    parser.add_argument("--vocab", type=int, default=0, help="vocabulary (default: tokenizer.vocab_size)")
    parser.add_argument("--decode-sentences", type=int, default=100, help="sentences decoded (default 100)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args()
    if not os.path.exists(args.config):
        sys.exit(f"bench_torch.py: config '{args.config}' not found")
    if args.steps < 1 or args.batch < 1 or args.length < 2:
        sys.exit("bench_torch.py: --steps and --batch must be at least 1, --length at least 2")
    c = read_config(args.config, args.vocab)

    best = None
    for threads in [int(t) for t in args.threads.split(",")]:
        model, medians = time_training(c, args, threads)
        del model                                  # one model alive at a time, so the peak RSS is one training's
        gc.collect()
        if best is None or medians["step"] < best[1]["step"]:
            best = (threads, medians)
    threads, medians = best
    training_peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    torch.set_num_threads(threads)
    torch.manual_seed(args.seed)
    model = Seq2Seq(c)                             # decoding times a fresh model of the same shape
    B, T = args.batch, args.length
    step_flops = 3 * forward_flops(c, B, T, T)
    gemm = gemm_gflops(1024)
    gemm_model_shapes = model_shapes_gflops(c, B, T)

    model.eval()
    gen = torch.Generator().manual_seed(args.seed + 200)
    greedy_rate, mean_length = None, None
    if args.decode_sentences > 0:
        sentences = [torch.randint(UNK + 1, c["vocab"], (1, T), generator=gen) for _ in range(args.decode_sentences)]
        start = time.perf_counter()
        produced = sum(len(greedy_decode(model, s, 32)) for s in sentences)
        greedy_rate = len(sentences) / (time.perf_counter() - start)
        mean_length = produced / len(sentences)

    r = {
        "program": "pytorch " + torch.__version__,
        "blas_core": blas_core(),
        "config": args.config,
        "threads": threads,
        "parameters": sum(p.numel() for p in model.parameters()),
        "batch": B,
        "length": T,
        "steps": args.steps,
        "tokens_per_step": B * 2 * T,
        "step_ms": 1e3 * medians["step"],
        "forward_ms": 1e3 * medians["forward"],
        "backward_ms": 1e3 * medians["backward"],
        "optimizer_ms": 1e3 * medians["optimizer"],
        "tokens_per_s": B * 2 * T / medians["step"],
        "gflop_per_step": step_flops / 1e9,
        "model_gflop_per_s": step_flops / medians["step"] / 1e9,
        "gemm_gflop_per_s": gemm,
        "peak_share": step_flops / medians["step"] / 1e9 / gemm,
        "gemm_model_shapes_gflop_per_s": gemm_model_shapes,
        "greedy_sentences_per_s": greedy_rate,
        "greedy_mean_length": mean_length,
        "beam": 4,
        "beam_sentences_per_s": None,
        "training_peak_rss_mb": training_peak_rss_mb,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }
    if args.json:
        print(json.dumps(r))
        return
    print(f"bench_torch.py {args.config}: {r['parameters'] / 1e6:.2f} M parameters, batch {B} × {T} tokens each "
          f"side, {threads} threads (best of {args.threads})")
    print(f"  training step      {r['step_ms']:9.1f} ms   (median of {args.steps} steps after {args.warmup} warm-up)")
    print(f"    forward          {r['forward_ms']:9.1f} ms")
    print(f"    backward         {r['backward_ms']:9.1f} ms")
    print(f"    optimizer        {r['optimizer_ms']:9.1f} ms   (clip, Adam, zero_grad)")
    print(f"  tokens/s           {r['tokens_per_s']:9.0f}")
    print(f"  model              {r['model_gflop_per_s']:9.1f} GFLOP/s ({r['gflop_per_step']:.1f} GFLOP per step)")
    print(f"  GEMM peak          {gemm:9.1f} GFLOP/s (torch.mm 1024²): model at {100 * r['peak_share']:.0f}% of it")
    print(f"  GEMM, model shapes {gemm_model_shapes:9.1f} GFLOP/s (torch.mm at the Linear layers' products, "
          f"OpenBLAS kernel {r['blas_core']})")
    if greedy_rate is not None:
        print(f"  greedy decoding    {greedy_rate:9.2f} sentences/s ({args.decode_sentences} sentences, tutorial "
              f"loop; mean {mean_length:.1f} tokens)")
    print("  beam decoding (4)        n/a (not implemented in this script)")
    print(f"  peak RSS           {r['training_peak_rss_mb']:9.1f} MiB while training, {r['peak_rss_mb']:.1f} MiB at the end")


if __name__ == "__main__":
    main()
