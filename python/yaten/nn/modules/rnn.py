"""RNN, LSTM, GRU and their cells (one step), torch's parameters (weight_ih, weight_hh, bias_ih,
bias_hh, gates stacked in torch's order: LSTM i, f, g, o; GRU r, z, n) and its initialization U(-1/sqrt(hidden),
1/sqrt(hidden)), so a state_dict moves between the two libraries."""

from __future__ import annotations

import math
from typing import Any

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

Tensor = _C.Tensor


def _reset_uniform(module: Module) -> None:
    """torch's initialization of the recurrent layers and cells: every parameter U(-1/sqrt(hidden), 1/sqrt(hidden))."""
    bound = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound)


class RNNCellBase(Module):
    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        kwargs = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(_C.empty([num_chunks * hidden_size, input_size], **kwargs))
        self.weight_hh = Parameter(_C.empty([num_chunks * hidden_size, hidden_size], **kwargs))
        if bias:
            self.bias_ih = Parameter(_C.empty([num_chunks * hidden_size], **kwargs))
            self.bias_hh = Parameter(_C.empty([num_chunks * hidden_size], **kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_uniform(self)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            text += ", bias=False"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def _prepare(self, input: Tensor, hx: Tensor | None) -> tuple[Tensor, Tensor | None, bool]:
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
            hx = hx.unsqueeze(0) if hx is not None else None
        return input, hx, batched

    def _zeros(self, input: Tensor) -> Tensor:
        return _C.zeros([input.shape[0], self.hidden_size], dtype=input.dtype, device=input.device)


class RNNCell(RNNCellBase):
    """h' = tanh (or relu) of W_ih x + b_ih + W_hh h + b_hh."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, hx, batched = self._prepare(input, hx)
        h = self._zeros(input) if hx is None else hx
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        out = _step(mode, F.linear(input, self.weight_ih, self.bias_ih), h, None, self.weight_hh, self.bias_hh,
                    None)[0]
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """(h', c') from the input, forget, cell and output gates of x and (h, c)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        h0, c0 = (None, None) if hx is None else hx
        input, h0, batched = self._prepare(input, h0)
        if c0 is not None and not batched:
            c0 = c0.unsqueeze(0)
        h = self._zeros(input) if h0 is None else h0
        c = self._zeros(input) if c0 is None else c0
        h_next, c_next = _step("LSTM", F.linear(input, self.weight_ih, self.bias_ih), h, c, self.weight_hh,
                               self.bias_hh, None)
        if not batched:
            return h_next.squeeze(0), c_next.squeeze(0)
        return h_next, c_next


class GRUCell(RNNCellBase):
    """h' from the reset, update and new gates of x and h."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, hx, batched = self._prepare(input, hx)
        h = self._zeros(input) if hx is None else hx
        out = _step("GRU", F.linear(input, self.weight_ih, self.bias_ih), h, None, self.weight_hh, self.bias_hh,
                    None)[0]
        return out if batched else out.squeeze(0)


class RNNBase(Module):
    """The multi-layer recurrent layers: torch's parameters per layer and direction (weight_ih_l0, weight_hh_l0,
    bias_ih_l0, bias_hh_l0, their _reverse twins, and weight_hr_l0 for an LSTM with proj_size), its shapes
    ((L, N, H) or batch_first (N, L, H) or unbatched (L, H)) and its dropout between layers. The input projections of
    all time steps are one matmul per layer; the recurrence steps in Python. PackedSequence inputs are not supported."""

    _gates = 1

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size and proj_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        gate_size = self._gates * hidden_size
        kwargs = {"device": device, "dtype": dtype}
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = [("weight_ih", [gate_size, layer_input]), ("weight_hh", [gate_size, real_hidden])]
                if bias:
                    shapes += [("bias_ih", [gate_size]), ("bias_hh", [gate_size])]
                if proj_size > 0:
                    shapes += [("weight_hr", [proj_size, hidden_size])]
                for name, shape in shapes:
                    setattr(self, name + suffix, Parameter(_C.empty(shape, **kwargs)))
                    self._flat_weights_names.append(name + suffix)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_uniform(self)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Any]:
        if not isinstance(input, Tensor):
            raise NotImplementedError(f"{type(self).__name__}: PackedSequence inputs are not supported in yaten")
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        batched = input.dim() == 3
        x = input if batched else input.unsqueeze(1)
        if batched and self.batch_first:
            x = x.transpose(0, 1)
        steps, batch = x.shape[0], x.shape[1]
        directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        lstm = self.mode == "LSTM"
        h0, c0 = (hx if lstm else (hx, None)) if hx is not None else (None, None)
        if h0 is not None and not batched:
            h0 = h0.unsqueeze(1)
            c0 = c0.unsqueeze(1) if c0 is not None else None
        kwargs = {"dtype": x.dtype, "device": x.device}
        if h0 is None:
            h0 = _C.zeros([self.num_layers * directions, batch, real_hidden], **kwargs)
        if lstm and c0 is None:
            c0 = _C.zeros([self.num_layers * directions, batch, self.hidden_size], **kwargs)
        expected = (self.num_layers * directions, batch, real_hidden)
        if tuple(h0.shape) != expected:
            raise RuntimeError(f"Expected hidden size {expected}, got {list(h0.shape)}")
        layers = []
        for layer in range(self.num_layers):
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                layers.append(tuple(getattr(self, name + suffix, None) if (self.bias or not name.startswith("bias"))
                                    else None for name in ("weight_ih", "bias_ih", "weight_hh", "bias_hh",
                                                           "weight_hr")))
        output, h_n, c_n = _run(self.mode, x, h0, c0, layers, self.num_layers, directions, self.dropout,
                                self.training)
        if batched and self.batch_first:
            output = output.transpose(0, 1)
        if not batched:
            output = output.squeeze(1)
            h_n = h_n.squeeze(1)
            c_n = c_n.squeeze(1) if c_n is not None else None
        return output, ((h_n, c_n) if lstm else h_n)


class RNN(RNNBase):
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, 0, device, dtype)



class LSTM(RNNBase):
    _gates = 4

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)



class GRU(RNNBase):
    _gates = 3

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, 0,
                         device, dtype)


# ------------------------------------------------------------------------------------------------ the recurrence
# One implementation of the recurrent layers, shared by the modules above and torch's functional spellings
# (torch.lstm, torch.gru, torch.rnn_tanh, torch.rnn_relu and their *_cell): the input projections of all time steps
# are one matmul per layer and direction, the recurrence steps in Python.
Weights = tuple  # (weight_ih, bias_ih, weight_hh, bias_hh, weight_hr), the biases and weight_hr may be None


def _step(mode: str, gi: Tensor, h: Tensor, c: Tensor | None, weight_hh: Tensor, bias_hh: Tensor | None,
          weight_hr: Tensor | None) -> tuple[Tensor, Tensor | None]:
    """One time step from the input's projection gi (bias_ih included) and the state (h, c)."""
    gh = F.linear(h, weight_hh, bias_hh)
    if mode == "LSTM":
        i, f, g, o = (gi + gh).chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        return (F.linear(h, weight_hr) if weight_hr is not None else h), c
    if mode == "GRU":
        i_r, i_z, i_n = gi.chunk(3, 1)
        h_r, h_z, h_n = gh.chunk(3, 1)
        r = (i_r + h_r).sigmoid()
        z = (i_z + h_z).sigmoid()
        n = (i_n + r * h_n).tanh()
        return (1 - z) * n + z * h, None
    pre = gi + gh
    return (pre.tanh() if mode == "RNN_TANH" else pre.relu()), None


def _run(mode: str, x: Tensor, h0: Tensor, c0: Tensor | None, layers: list[Weights], num_layers: int,
         directions: int, dropout: float, training: bool) -> tuple[Tensor, Tensor, Tensor | None]:
    """The layers over x (L, N, H_in) from h0 (and c0) of (layers * directions, N, H): (output, h_n, c_n)."""
    steps, batch = x.shape[0], x.shape[1]
    lstm = mode == "LSTM"
    h_last, c_last = [], []
    layer_input = x
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            weight_ih, bias_ih, weight_hh, bias_hh, weight_hr = layers[index]
            h = h0[index]
            c = c0[index] if lstm else None
            gi_all = F.linear(layer_input, weight_ih, bias_ih)
            order = range(steps - 1, -1, -1) if direction == 1 else range(steps)
            seq: list[Any] = [None] * steps
            for t in order:
                h, c = _step(mode, gi_all[t], h, c, weight_hh, bias_hh, weight_hr)
                seq[t] = h
            outputs.append(_C.stack(seq, 0) if steps else
                           _C.zeros([0, batch, h0.shape[-1]], dtype=x.dtype, device=x.device))
            h_last.append(h)
            if lstm:
                c_last.append(c)
        layer_input = outputs[0] if directions == 1 else _C.cat(outputs, 2)
        if dropout and training and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, True)
    return layer_input, _C.stack(h_last, 0), (_C.stack(c_last, 0) if lstm else None)


def _layers_from_params(name: str, params: Any, has_biases: bool, num_layers: int,
                        directions: int) -> list[Weights]:
    """ATen's flat parameter list (per layer and direction: w_ih, w_hh, then b_ih, b_hh when has_biases, then w_hr
    for a projected LSTM) as the (w_ih, b_ih, w_hh, b_hh, w_hr) tuples _run takes."""
    params = list(params)
    groups = num_layers * directions
    per = 4 if has_biases else 2
    if len(params) == groups * (per + 1):
        per += 1
    elif len(params) != groups * per:
        raise RuntimeError(f"{name}: expected {groups * per} parameters for {num_layers} layers, "
                           f"{directions} directions{' with biases' if has_biases else ''}, got {len(params)}")
    layers = []
    for g in range(groups):
        chunk = params[g * per:(g + 1) * per]
        w_ih, w_hh = chunk[0], chunk[1]
        b_ih, b_hh = (chunk[2], chunk[3]) if has_biases else (None, None)
        w_hr = chunk[-1] if per in (3, 5) else None
        layers.append((w_ih, b_ih, w_hh, b_hh, w_hr))
    return layers


def _functional(mode: str, input: Tensor, hx: Any, params: Any, has_biases: bool, num_layers: int, dropout: float,
                train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, ...]:
    name = {"LSTM": "lstm", "GRU": "gru", "RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu"}[mode]
    if input.dim() != 3:
        raise RuntimeError(f"{name}: input must have 3 dimensions, got {input.dim()}")
    directions = 2 if bidirectional else 1
    layers = _layers_from_params(name, params, has_biases, num_layers, directions)
    h0, c0 = (hx[0], hx[1]) if mode == "LSTM" else (hx, None)
    x = input.transpose(0, 1) if batch_first else input
    output, h_n, c_n = _run(mode, x, h0, c0, layers, num_layers, directions, dropout, train)
    output = output.transpose(0, 1) if batch_first else output
    return (output, h_n, c_n) if mode == "LSTM" else (output, h_n)


def lstm(input: Tensor, hx: Any, params: Any, has_biases: bool, num_layers: int, dropout: float, train: bool,
         bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:
    """torch.lstm: nn.LSTM's computation on a flat parameter list; hx = (h0, c0). Returns (output, h_n, c_n)."""
    return _functional("LSTM", input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                       batch_first)


def gru(input: Tensor, hx: Tensor, params: Any, has_biases: bool, num_layers: int, dropout: float, train: bool,
        bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    """torch.gru: nn.GRU's computation on a flat parameter list. Returns (output, h_n)."""
    return _functional("GRU", input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                       batch_first)


def rnn_tanh(input: Tensor, hx: Tensor, params: Any, has_biases: bool, num_layers: int, dropout: float, train: bool,
             bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    return _functional("RNN_TANH", input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                       batch_first)


def rnn_relu(input: Tensor, hx: Tensor, params: Any, has_biases: bool, num_layers: int, dropout: float, train: bool,
             bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    return _functional("RNN_RELU", input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                       batch_first)


def lstm_cell(input: Tensor, hx: Any, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
              b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """One LSTM step: (h', c') from input (N, H_in) and hx = (h, c)."""
    h, c = _step("LSTM", F.linear(input, w_ih, b_ih), hx[0], hx[1], w_hh, b_hh, None)
    return h, c


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
             b_hh: Tensor | None = None) -> Tensor:
    return _step("GRU", F.linear(input, w_ih, b_ih), hx, None, w_hh, b_hh, None)[0]


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    return _step("RNN_TANH", F.linear(input, w_ih, b_ih), hx, None, w_hh, b_hh, None)[0]


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    return _step("RNN_RELU", F.linear(input, w_ih, b_ih), hx, None, w_hh, b_hh, None)[0]
