"""The trained policies that ship with hot_envs: ``NAME.npz`` + ``NAME.json``, and earlier ones
under ``earlier/`` (README.md is their model card). Data only; loaded by name through
:mod:`hot_envs.agents.shipped`."""
