BEGIN {
  principal = 6000; rate = 0.072 / 12; n = 24
  pay = principal * rate / (1 - (1 + rate) ^ -n)
  print "month,payment,interest,principal,balance"
  bal = principal
  for (m = 1; m <= n; m++) {
    int_ = bal * rate; pr = pay - int_; bal -= pr
    if (bal < 0.005) bal = 0
    printf "%d,%.2f,%.2f,%.2f,%.2f\n", m, pay, int_, pr, bal
  }
}
