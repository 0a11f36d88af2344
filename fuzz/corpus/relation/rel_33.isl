[n] -> {S[i]: 0<=i<n and exists e : i = 2e}
