"""yaten.utils.data: torch.utils.data's datasets, samplers and DataLoader."""

from .dataloader import DataLoader, default_collate, default_convert, get_worker_info  # noqa: F401
from .dataset import (  # noqa: F401
    ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset, random_split)
from .sampler import (  # noqa: F401
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler, WeightedRandomSampler)
from .distributed import DistributedSampler  # noqa: F401
from . import distributed  # noqa: F401,E402  (yaten.utils.data.distributed.DistributedSampler, torch's path)
