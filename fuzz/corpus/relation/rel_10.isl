{S[i,j,k]->A[i,k]}
