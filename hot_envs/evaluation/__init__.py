"""Judging agents: matches and round robins with rotated seats (:mod:`~hot_envs.evaluation.arena`),
the gauntlet against the opponent suite (:mod:`~hot_envs.evaluation.gauntlet`), reports
(:mod:`~hot_envs.evaluation.report`) and replayable game records
(:mod:`~hot_envs.evaluation.records`)."""
