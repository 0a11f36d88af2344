{S[i,j,k]: 0<=i<12 and 0<=j<12 and 0<=k<10}
