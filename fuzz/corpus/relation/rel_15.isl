{S[i,j]: 0<=i<9 and 0<=j<7}
