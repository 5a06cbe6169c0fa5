//! Compensated summation, so that budgets over 10^7 pages are exact to ~1e-15 relative.

/// Neumaier's variant of Kahan summation: the error does not grow with the number of terms.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CompensatedSum {
    sum: f64,
    compensation: f64,
}

impl CompensatedSum {
    pub(crate) fn add(&mut self, value: f64) {
        if !value.is_finite() || !self.sum.is_finite() {
            // Infinite demand (a threshold of 0): keep the infinity, skip the compensation.
            self.sum += value;
            return;
        }
        let total = self.sum + value;
        if self.sum.abs() >= value.abs() {
            self.compensation += (self.sum - total) + value;
        } else {
            self.compensation += (value - total) + self.sum;
        }
        self.sum = total;
    }

    pub(crate) fn value(self) -> f64 {
        if !self.sum.is_finite() {
            return self.sum;
        }
        self.sum + self.compensation
    }
}

#[cfg(test)]
mod tests {
    use super::CompensatedSum;

    #[test]
    fn recovers_what_naive_summation_loses() {
        let mut compensated = CompensatedSum::default();
        let mut naive = 0.0;
        for value in [1.0, 1e100, 1.0, -1e100] {
            compensated.add(value);
            naive += value;
        }
        assert_eq!(compensated.value(), 2.0);
        assert_ne!(naive, 2.0);
    }
}
