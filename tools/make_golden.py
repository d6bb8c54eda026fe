#!/usr/bin/python3
"""make_golden.py — the reference answers attnlab's whole Transformer is checked against (tests/model/f64_golden.cpp).

llm.c guards its model the same way: build the model once more in PyTorch, run one batch forward and backward,
write down the weights, the inputs, the logits, the loss and every gradient, and ask the C++ code to reproduce
them to within rounding. If attnlab's attention, masks, layer norms, embeddings, loss or any backward differ from
the standard Transformer, some number in these files will disagree and the test names it.

The PyTorch model below is written out by hand, module by module, so that its state_dict names are exactly
attnlab's named_parameters() names (encoder.layers.0.self_attn.q_proj.weight, …). It is the model of
src/model/transformer.h:

    x = Embedding(src) · √d_model + P          P the sinusoidal table (§3.5)
    encoder layer   post:  x = LN(x + SelfAttn(x));       x = LN(x + FFN(x))
                    pre:   x = x + SelfAttn(LN(x));       x = x + FFN(LN(x));   LN after the last layer
    decoder layer   the same with causal self-attention, then cross-attention to the encoder's output
    logits = y · W_outᵀ                        output_projection, no bias
    loss   = CrossEntropyLoss(label_smoothing=0.1, ignore_index=pad)

Before writing anything, the script checks its own layer stacks against PyTorch's nn.TransformerEncoder and
nn.TransformerDecoder with the same weights: the reference is not just "what we think a Transformer is".

The decoder-only model (GPT, src/gpt/decoder_only.h) gets its own file, decoder_only_pre.safetensors: the
decoder stack without cross-attention (the encoder layer's two sublayers, with a causal mask), pre-LN, the output
layer tied to the token embeddings, and the loss of the next token on two blocks (one padded). Its own self-check
is against nn.TransformerEncoder with a causal mask: GPT is an "encoder" that may not look ahead.

Run with Debian's PyTorch (python3-torch; the python3 first on PATH may lack it):

    /usr/bin/python3 tools/make_golden.py            # writes tests/model/golden/transformer_{post,pre}.safetensors
                                                     # and tests/gpt/golden/decoder_only_pre.safetensors
    /usr/bin/python3 tools/make_golden.py decoder_only    # only that one (also: post, pre)

Everything is float64 and seeded, so running it again writes the same numbers (up to PyTorch's own kernels).
The files are written with struct and numpy, by hand: no safetensors package is needed.
"""
import json
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)

PAD, BOS, EOS = 0, 1, 2          # attnlab's fixed special ids (src/model/config.h)
SEED = 1234

CONFIG = {                       # the keys of attnlab's ModelConfig (src/model/config.h)
    "src_vocab": 11,
    "tgt_vocab": 13,
    "d_model": 32,
    "heads": 4,
    "d_ff": 64,
    "encoder_layers": 2,
    "decoder_layers": 2,
    "dropout": 0.0,
    "activation": "relu",
    "positional": "sinusoidal",
    "attention": "scaled_dot",   # for encoder, decoder and cross-attention alike
    "share_embeddings": False,
    "tie_output": False,
    "label_smoothing": 0.1,
}

# ---------------------------------------------------------------------------------------------- the model


def sinusoidal_table(length, d_model):
    """P[t, 2i] = sin(t · 10000^(-2i/d)), P[t, 2i+1] = cos(t · 10000^(-2i/d))   — [length, d_model]"""
    position = torch.arange(length, dtype=torch.float64).unsqueeze(1)                      # [T, 1]
    frequency = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))    # [d/2]
    table = torch.zeros(length, d_model)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return table


class MultiHeadAttention(nn.Module):
    """softmax(Q Kᵀ / √d_k + mask) V per head, then out_proj — src/attention/scaled_dot.cpp"""

    def __init__(self, d_model, heads):
        super().__init__()
        self.heads = heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, x, memory, mask):          # x [B, Tq, d], memory [B, Tk, d], mask [B, 1, Tq, Tk] of 0/−∞
        B, Tq, d = x.shape
        Tk, d_k = memory.shape[1], d // self.heads
        Q = self.q_proj(x).view(B, Tq, self.heads, d_k).transpose(1, 2)          # [B, h, Tq, d_k]
        K = self.k_proj(memory).view(B, Tk, self.heads, d_k).transpose(1, 2)     # [B, h, Tk, d_k]
        V = self.v_proj(memory).view(B, Tk, self.heads, d_k).transpose(1, 2)     # [B, h, Tk, d_k]
        scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k) + mask                 # [B, h, Tq, Tk]
        weights = torch.softmax(scores, dim=-1)
        context = (weights @ V).transpose(1, 2).reshape(B, Tq, d)                # [B, Tq, d] heads concatenated
        return self.out_proj(context)


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        return self.linear2(F.relu(self.linear1(x)))


def residual(x, norm, pre_norm, sublayer):
    """post: LN(x + f(x))     pre: x + f(LN(x))"""
    return x + sublayer(norm(x)) if pre_norm else norm(x + sublayer(x))


class EncoderLayer(nn.Module):
    def __init__(self, c, pre_norm):
        super().__init__()
        self.pre_norm = pre_norm
        self.self_attn = MultiHeadAttention(c["d_model"], c["heads"])
        self.self_attn_layer_norm = nn.LayerNorm(c["d_model"], eps=1e-5)
        self.ffn = FeedForward(c["d_model"], c["d_ff"])
        self.final_layer_norm = nn.LayerNorm(c["d_model"], eps=1e-5)

    def forward(self, x, self_mask):
        x = residual(x, self.self_attn_layer_norm, self.pre_norm, lambda h: self.self_attn(h, h, self_mask))
        return residual(x, self.final_layer_norm, self.pre_norm, self.ffn)


class DecoderLayer(nn.Module):
    def __init__(self, c, pre_norm):
        super().__init__()
        self.pre_norm = pre_norm
        self.self_attn = MultiHeadAttention(c["d_model"], c["heads"])
        self.self_attn_layer_norm = nn.LayerNorm(c["d_model"], eps=1e-5)
        self.encoder_attn = MultiHeadAttention(c["d_model"], c["heads"])
        self.encoder_attn_layer_norm = nn.LayerNorm(c["d_model"], eps=1e-5)
        self.ffn = FeedForward(c["d_model"], c["d_ff"])
        self.final_layer_norm = nn.LayerNorm(c["d_model"], eps=1e-5)

    def forward(self, y, memory, self_mask, cross_mask):
        y = residual(y, self.self_attn_layer_norm, self.pre_norm, lambda h: self.self_attn(h, h, self_mask))
        y = residual(y, self.encoder_attn_layer_norm, self.pre_norm,
                     lambda h: self.encoder_attn(h, memory, cross_mask))
        return residual(y, self.final_layer_norm, self.pre_norm, self.ffn)


class Stack(nn.Module):
    """embed_tokens, layers.0 … layers.N-1 and, for pre-LN, the final layer_norm — the encoder or the decoder"""

    def __init__(self, c, vocab, layer_count, layer_class, pre_norm):
        super().__init__()
        self.d_model = c["d_model"]
        self.embed_tokens = nn.Embedding(vocab, c["d_model"])          # no padding_idx: pad is an ordinary row
        self.layers = nn.ModuleList(layer_class(c, pre_norm) for _ in range(layer_count))
        self.layer_norm = nn.LayerNorm(c["d_model"], eps=1e-5) if pre_norm else None

    def embed(self, ids):                                              # [B, T] → [B, T, d]
        return self.embed_tokens(ids) * math.sqrt(self.d_model) + sinusoidal_table(ids.shape[1], self.d_model)

    def finish(self, x):
        return self.layer_norm(x) if self.layer_norm is not None else x


class Seq2Seq(nn.Module):
    def __init__(self, c, norm):
        super().__init__()
        pre_norm = norm == "pre"
        self.encoder = Stack(c, c["src_vocab"], c["encoder_layers"], EncoderLayer, pre_norm)
        self.decoder = Stack(c, c["tgt_vocab"], c["decoder_layers"], DecoderLayer, pre_norm)
        self.output_projection = nn.Linear(c["d_model"], c["tgt_vocab"], bias=False)

    def forward(self, src, tgt_in):
        self_mask, causal_mask, cross_mask = masks(src, tgt_in)
        x = self.encoder.embed(src)                                    # [B, S, d]
        for layer in self.encoder.layers:
            x = layer(x, self_mask)
        memory = self.encoder.finish(x)                                # [B, S, d]
        y = self.decoder.embed(tgt_in)                                 # [B, T, d]
        for layer in self.decoder.layers:
            y = layer(y, memory, causal_mask, cross_mask)
        return self.output_projection(self.decoder.finish(y))          # [B, T, V]


def masks(src, tgt_in):
    """Additive masks [B, 1, Tq, Tk]: 0 where a query may look, −∞ at padding keys and (decoder) later keys."""
    minus_infinity = float("-inf")
    S, T = src.shape[1], tgt_in.shape[1]
    src_pad = (src == PAD)[:, None, None, :]                            # [B, 1, 1, S]
    tgt_pad = (tgt_in == PAD)[:, None, None, :]                         # [B, 1, 1, T]
    later = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # [T, T] key j > query i
    zeros = torch.zeros(1)
    self_mask = torch.where(src_pad.expand(-1, 1, S, S), minus_infinity, zeros)
    causal_mask = torch.where(tgt_pad | later, minus_infinity, zeros)
    cross_mask = torch.where(src_pad.expand(-1, 1, T, S), minus_infinity, zeros)
    return self_mask, causal_mask, cross_mask


def randomise(model, generator):
    """Every number random, LayerNorm's γ and β included, so that every parameter's role is tested."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=generator)
            if "layer_norm" in name and name.endswith(".weight"):
                p.copy_(1 + 0.3 * noise)                               # γ near 1, but not 1
            elif "embed_tokens" in name:
                p.copy_(0.3 * noise)                                   # × √32 ≈ 5.7 in the forward pass
            else:
                p.copy_(0.2 * noise)                                   # weights, biases, β


# ---------------------------------------------------------------------------------------------- the batch


def make_batch(generator):
    """Three sentence pairs of different lengths, padded with PAD: src [3, 6], tgt_in / targets [3, 7]."""
    src_lengths, tgt_lengths = [6, 3, 4], [4, 6, 2]                    # real tokens (targets: + eos)
    S, T = max(src_lengths), max(tgt_lengths) + 1
    src = torch.full((3, S), PAD, dtype=torch.long)
    tgt_in = torch.full((3, T), PAD, dtype=torch.long)
    targets = torch.full((3, T), PAD, dtype=torch.long)
    for b in range(3):
        source = torch.randint(3, CONFIG["src_vocab"], (src_lengths[b] - 1,), generator=generator)
        target = torch.randint(3, CONFIG["tgt_vocab"], (tgt_lengths[b],), generator=generator)
        src[b, :src_lengths[b]] = torch.cat([source, torch.tensor([EOS])])
        tgt_in[b, :tgt_lengths[b] + 1] = torch.cat([torch.tensor([BOS]), target])      # bos w1 … wn
        targets[b, :tgt_lengths[b] + 1] = torch.cat([target, torch.tensor([EOS])])     # w1 … wn eos
    return src, tgt_in, targets


# ---------------------------------------------------------------------------------------------- self-check


def check_against_torch_transformer(model, norm, src, tgt_in):
    """Our encoder and decoder stacks must equal nn.TransformerEncoder/Decoder with the same weights."""
    c, pre_norm = CONFIG, norm == "pre"
    kwargs = dict(d_model=c["d_model"], nhead=c["heads"], dim_feedforward=c["d_ff"], dropout=0.0,
                  activation="relu", layer_norm_eps=1e-5, batch_first=True, norm_first=pre_norm)
    final = (lambda: nn.LayerNorm(c["d_model"], eps=1e-5)) if pre_norm else (lambda: None)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(**kwargs), c["encoder_layers"], norm=final(),
                                    enable_nested_tensor=False)
    decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(**kwargs), c["decoder_layers"], norm=final())

    def copy_attention(theirs, ours):
        theirs.in_proj_weight.copy_(torch.cat([ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight]))
        theirs.in_proj_bias.copy_(torch.cat([ours.q_proj.bias, ours.k_proj.bias, ours.v_proj.bias]))
        theirs.out_proj.weight.copy_(ours.out_proj.weight)
        theirs.out_proj.bias.copy_(ours.out_proj.bias)

    def copy_norm(theirs, ours):
        theirs.weight.copy_(ours.weight)
        theirs.bias.copy_(ours.bias)

    def copy_ffn(theirs, ours):
        theirs.linear1.load_state_dict(ours.ffn.linear1.state_dict())
        theirs.linear2.load_state_dict(ours.ffn.linear2.state_dict())

    with torch.no_grad():
        for theirs, ours in zip(encoder.layers, model.encoder.layers):
            copy_attention(theirs.self_attn, ours.self_attn)
            copy_ffn(theirs, ours)
            copy_norm(theirs.norm1, ours.self_attn_layer_norm)
            copy_norm(theirs.norm2, ours.final_layer_norm)
        for theirs, ours in zip(decoder.layers, model.decoder.layers):
            copy_attention(theirs.self_attn, ours.self_attn)
            copy_attention(theirs.multihead_attn, ours.encoder_attn)
            copy_ffn(theirs, ours)
            copy_norm(theirs.norm1, ours.self_attn_layer_norm)
            copy_norm(theirs.norm2, ours.encoder_attn_layer_norm)
            copy_norm(theirs.norm3, ours.final_layer_norm)
        if pre_norm:
            copy_norm(encoder.norm, model.encoder.layer_norm)
            copy_norm(decoder.norm, model.decoder.layer_norm)

    # Train mode (dropout is 0) keeps PyTorch off its inference fast path, which zeroes padded positions.
    encoder.train()
    decoder.train()
    T = tgt_in.shape[1]
    causal = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
    memory = encoder(model.encoder.embed(src), src_key_padding_mask=src == PAD)
    theirs = decoder(model.decoder.embed(tgt_in), memory, tgt_mask=causal, tgt_key_padding_mask=tgt_in == PAD,
                     memory_key_padding_mask=src == PAD)
    logits_theirs = F.linear(theirs, model.output_projection.weight)
    logits_ours = model(src, tgt_in)
    error = (logits_theirs - logits_ours).abs().max().item()
    if not error < 1e-12:
        sys.exit(f"make_golden.py: our {norm}-LN model differs from nn.Transformer* by {error:g}; not writing")
    return error


# ---------------------------------------------------------------------------------------------- the file


def write_safetensors(path, tensors, metadata):
    """tensors: [(name, float64 numpy array)], written in this order as F64; metadata: {str: str}."""
    header, offset = {}, 0
    for name, array in tensors:
        header[name] = {"dtype": "F64", "shape": list(array.shape), "data_offsets": [offset, offset + array.nbytes]}
        offset += array.nbytes
    header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)                                    # pad so the data starts 8-aligned
    temporary = path + ".tmp"
    with open(temporary, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, array in tensors:
            f.write(np.ascontiguousarray(array, dtype="<f8").tobytes())
    os.replace(temporary, path)


def make_golden(norm, path, root):
    generator = torch.Generator().manual_seed(SEED)
    src, tgt_in, targets = make_batch(generator)                       # the same batch for post and pre
    model = Seq2Seq(CONFIG, norm)
    randomise(model, generator)

    self_check = check_against_torch_transformer(model, norm, src, tgt_in)

    logits = model(src, tgt_in)                                        # [B, T, V]
    loss = F.cross_entropy(logits.reshape(-1, CONFIG["tgt_vocab"]), targets.reshape(-1),
                           ignore_index=PAD, label_smoothing=CONFIG["label_smoothing"])
    model.zero_grad()
    loss.backward()

    parameters = list(model.named_parameters())
    tensors = [(name, p.detach().numpy()) for name, p in parameters]
    tensors += [("grad." + name, p.grad.numpy()) for name, p in parameters]
    tensors += [("input.src", src.double().numpy()), ("input.tgt_in", tgt_in.double().numpy()),
                ("input.targets", targets.double().numpy()),
                ("output.logits", logits.detach().numpy()), ("output.loss", loss.detach().reshape(1).numpy())]
    metadata = {key: str(value).lower() if isinstance(value, bool) else str(value) for key, value in CONFIG.items()}
    metadata.update({
        "norm": norm,
        "pad_id": str(PAD), "bos_id": str(BOS), "eos_id": str(EOS),
        "seed": str(SEED),
        "torch_version": torch.__version__,
        "regenerate": "/usr/bin/python3 tools/make_golden.py",
        "format": "weights under their names, gradients under grad.<name>, ids as F64, all float64",
    })
    write_safetensors(path, tensors, metadata)
    print(f"{os.path.relpath(path, root)}: {len(parameters)} parameters, loss {loss.item():.12f}, "
          f"own model vs nn.Transformer* max |Δlogit| {self_check:.1e}")


# ---------------------------------------------------------------------------------------------- decoder-only

GPT_CONFIG = dict(CONFIG, src_vocab=13, tgt_vocab=13, encoder_layers=0, tie_output=True, task="language_model")


class DecoderOnly(nn.Module):
    """src/gpt/decoder_only.h: decoder layers without cross-attention (an encoder layer's two sublayers under a
    causal mask), pre-LN, logits = y · Eᵀ with E the token embeddings (tied)."""

    def __init__(self, c):
        super().__init__()
        self.decoder = Stack(c, c["tgt_vocab"], c["decoder_layers"], EncoderLayer, pre_norm=True)

    def forward(self, tokens):
        _, causal_mask, _ = masks(tokens, tokens)                      # padding + later keys hidden
        y = self.decoder.embed(tokens)                                 # [B, T, d]
        for layer in self.decoder.layers:
            y = layer(y, causal_mask)
        return F.linear(self.decoder.finish(y), self.decoder.embed_tokens.weight)   # [B, T, V], tied


def make_blocks(generator):
    """Two blocks of a text, the second padded: tokens b_0 … b_{T−1} and targets b_1 … b_T, [2, 7] each."""
    lengths, T = [8, 5], 7                                             # block lengths (T + 1 for a full one)
    tokens = torch.full((2, T), PAD, dtype=torch.long)
    targets = torch.full((2, T), PAD, dtype=torch.long)
    for b in range(2):
        block = torch.randint(3, GPT_CONFIG["tgt_vocab"], (lengths[b],), generator=generator)
        block[0], block[3] = BOS, EOS                                  # a document ends inside the block
        tokens[b, :lengths[b] - 1] = block[:-1]
        targets[b, :lengths[b] - 1] = block[1:]                        # the shift by one
    return tokens, targets


def check_decoder_only_against_torch(model, tokens):
    """Our decoder-only stack must equal nn.TransformerEncoder (pre-LN) under a causal mask, same weights."""
    c = GPT_CONFIG
    layer = nn.TransformerEncoderLayer(d_model=c["d_model"], nhead=c["heads"], dim_feedforward=c["d_ff"],
                                       dropout=0.0, activation="relu", layer_norm_eps=1e-5, batch_first=True,
                                       norm_first=True)
    encoder = nn.TransformerEncoder(layer, c["decoder_layers"], norm=nn.LayerNorm(c["d_model"], eps=1e-5),
                                    enable_nested_tensor=False)
    with torch.no_grad():
        for theirs, ours in zip(encoder.layers, model.decoder.layers):
            attention = ours.self_attn
            theirs.self_attn.in_proj_weight.copy_(torch.cat([attention.q_proj.weight, attention.k_proj.weight,
                                                             attention.v_proj.weight]))
            theirs.self_attn.in_proj_bias.copy_(torch.cat([attention.q_proj.bias, attention.k_proj.bias,
                                                           attention.v_proj.bias]))
            theirs.self_attn.out_proj.load_state_dict(attention.out_proj.state_dict())
            theirs.linear1.load_state_dict(ours.ffn.linear1.state_dict())
            theirs.linear2.load_state_dict(ours.ffn.linear2.state_dict())
            theirs.norm1.load_state_dict(ours.self_attn_layer_norm.state_dict())
            theirs.norm2.load_state_dict(ours.final_layer_norm.state_dict())
        encoder.norm.load_state_dict(model.decoder.layer_norm.state_dict())
    encoder.train()                                                    # off the fast path (dropout is 0)
    T = tokens.shape[1]
    causal = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
    theirs = encoder(model.decoder.embed(tokens), mask=causal, src_key_padding_mask=tokens == PAD)
    logits_theirs = F.linear(theirs, model.decoder.embed_tokens.weight)
    real = (tokens != PAD)[:, :, None]                                 # padded queries are nobody's business
    error = ((logits_theirs - model(tokens)) * real).abs().max().item()
    if not error < 1e-12:
        sys.exit(f"make_golden.py: our decoder-only model differs from nn.TransformerEncoder by {error:g}; not writing")
    return error


def make_decoder_only_golden(path, root):
    generator = torch.Generator().manual_seed(SEED)
    tokens, targets = make_blocks(generator)
    model = DecoderOnly(GPT_CONFIG)
    randomise(model, generator)
    self_check = check_decoder_only_against_torch(model, tokens)

    logits = model(tokens)                                             # [B, T, V]
    loss = F.cross_entropy(logits.reshape(-1, GPT_CONFIG["tgt_vocab"]), targets.reshape(-1),
                           ignore_index=PAD, label_smoothing=GPT_CONFIG["label_smoothing"])
    model.zero_grad()
    loss.backward()
    parameters = list(model.named_parameters())
    tensors = [(name, p.detach().numpy()) for name, p in parameters]
    tensors += [("grad." + name, p.grad.numpy()) for name, p in parameters]
    tensors += [("input.tokens", tokens.double().numpy()), ("input.targets", targets.double().numpy()),
                ("output.logits", logits.detach().numpy()), ("output.loss", loss.detach().reshape(1).numpy())]
    metadata = {key: str(value).lower() if isinstance(value, bool) else str(value) for key, value in GPT_CONFIG.items()}
    metadata.update({
        "norm": "pre",
        "pad_id": str(PAD), "bos_id": str(BOS), "eos_id": str(EOS),
        "seed": str(SEED),
        "torch_version": torch.__version__,
        "regenerate": "/usr/bin/python3 tools/make_golden.py decoder_only",
        "format": "weights under their names, gradients under grad.<name>, ids as F64, all float64",
    })
    write_safetensors(path, tensors, metadata)
    print(f"{os.path.relpath(path, root)}: {len(parameters)} parameters, loss {loss.item():.12f}, "
          f"own model vs nn.TransformerEncoder (causal) max |Δlogit| {self_check:.1e}")


def main():
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    folder = os.path.join(root, "tests", "model", "golden")            # where tests/model/f64_golden.cpp reads
    os.makedirs(folder, exist_ok=True)
    wanted = sys.argv[1:] or ["post", "pre", "decoder_only"]
    for name in wanted:
        if name == "decoder_only":
            # tests/gpt/f64_golden.cpp reads it
            make_decoder_only_golden(os.path.join(root, "tests", "gpt", "golden", "decoder_only_pre.safetensors"), root)
        elif name in ("post", "pre"):
            make_golden(name, os.path.join(folder, f"transformer_{name}.safetensors"), root)
        else:
            sys.exit(f"make_golden.py: no golden file called '{name}'; choose post, pre or decoder_only")


if __name__ == "__main__":
    main()
