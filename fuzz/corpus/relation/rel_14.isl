{S[i,j]->A[i,j];S[i,j]->A[i+1,j]; S[i,j]->A[i-1,j] ; S[i,j]->A[i,j-1] ; S[i,j]->A[i,j+1]}
