"""yaten.optim: torch.optim's optimizers (their update rules, options and state_dict layout) and lr_scheduler."""

from . import lr_scheduler  # noqa: F401
from .algorithms import SGD, Adagrad, Adam, Adamax, AdamW, NAdam, RAdam, RMSprop  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
