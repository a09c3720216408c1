test_stats_SRCS := src/stats.c
