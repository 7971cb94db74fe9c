SELECT count(*) AS partitions FROM chopar.history_partitions($1::regclass)
