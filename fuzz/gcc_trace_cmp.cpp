// GCC's -fsanitize-coverage=trace-cmp also traces floating-point
// comparisons, which libFuzzer has no hooks for: they are not guidance worth
// having here, so they do nothing.
extern "C" {
void __sanitizer_cov_trace_cmpf(float, float) {}
void __sanitizer_cov_trace_cmpd(double, double) {}
}
