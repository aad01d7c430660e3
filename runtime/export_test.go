package runtime

// withPreempt returns c with another preemption mode, for benchmarks that
// compare the instrumentation with wazero's check and with no check.
func (c ProviderConfig) withPreempt(m preemptMode) ProviderConfig { c.preempt = m; return c }
